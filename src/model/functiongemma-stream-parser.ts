import {
  FG,
  FUNCTIONGEMMA_STOP_SEQUENCES,
  parseFunctionGemmaOutput,
  withoutFunctionGemmaStopMarkers,
  type FunctionGemmaOutputPart,
} from './functiongemma.js';

/**
 * Incremental FunctionGemma output parsing for streaming: text is released as soon as it cannot
 * be the beginning of a call block; a call block is held until `<end_function_call>` and then
 * parsed (a malformed block comes out as text). Feed chunks with push(), then call end().
 */
export class FunctionGemmaStreamParser {
  private buffer = '';

  push(chunk: string): FunctionGemmaOutputPart[] {
    this.buffer += chunk;
    const out: FunctionGemmaOutputPart[] = [];
    for (;;) {
      const start = this.buffer.indexOf(FG.startCall);
      if (start === -1) {
        // Hold back a tail that may still grow into `<start_function_call>` (or a stop marker).
        const keep = partialMarkerLength(this.buffer);
        const text = this.buffer.slice(0, this.buffer.length - keep);
        this.buffer = this.buffer.slice(this.buffer.length - keep);
        out.push(...textParts(text));
        return out;
      }
      out.push(...textParts(this.buffer.slice(0, start)));
      this.buffer = this.buffer.slice(start);
      const end = this.buffer.indexOf(FG.endCall);
      if (end === -1) return out;
      const block = this.buffer.slice(0, end + FG.endCall.length);
      this.buffer = this.buffer.slice(block.length);
      out.push(...parseFunctionGemmaOutput(block));
    }
  }

  /** Whatever is left: an unclosed call block is reported as text. */
  end(): FunctionGemmaOutputPart[] {
    const rest = this.buffer;
    this.buffer = '';
    return parseFunctionGemmaOutput(rest);
  }
}

function textParts(text: string): FunctionGemmaOutputPart[] {
  const cleaned = withoutFunctionGemmaStopMarkers(text);
  return cleaned ? [{ type: 'text', text: cleaned }] : [];
}

function partialMarkerLength(buffer: string): number {
  let best = 0;
  for (const marker of [FG.startCall, ...FUNCTIONGEMMA_STOP_SEQUENCES]) {
    for (let len = Math.min(marker.length - 1, buffer.length); len > best; len--) {
      if (buffer.endsWith(marker.slice(0, len))) {
        best = len;
        break;
      }
    }
  }
  return best;
}
