import type { LanguageModelV3FinishReason } from '@ai-sdk/provider';
import type { Token } from 'node-llama-cpp';
import { convertToFunctionGemmaMessages } from './convert-to-functiongemma-messages.js';
import { FG, FUNCTIONGEMMA_STOP_SEQUENCES, formatFunctionGemmaPrompt, splitFunctionGemmaControlTokens, type FunctionGemmaOutputPart } from './functiongemma.js';
import { FunctionGemmaStreamParser } from './functiongemma-stream-parser.js';
import {
  finishReasonOf,
  offeredTools,
  samplingOptions,
  throwIfAborted,
  type LocalGenerationRequest,
  type PreparedGeneration,
} from './local-generation-request.js';
import { loadNodeLlamaCpp } from './shared-llama.js';
import { tokenizeCached } from './token-cache.js';

/**
 * The FunctionGemma path: the prompt is written in FunctionGemma's own format and completed raw;
 * the output is parsed for call blocks as it streams. Special tokens are kept when detokenizing,
 * since the call markers are special tokens. A required call is forced by opening the call block
 * in the prompt.
 */
export async function prepareFunctionGemma(request: LocalGenerationRequest): Promise<PreparedGeneration> {
  const { LlamaCompletion, LlamaText, SpecialTokensText } = await loadNodeLlamaCpp();
  const { model, prompt, toolChoice } = request;
  const offered = offeredTools(request);
  let text = formatFunctionGemmaPrompt({
    messages: convertToFunctionGemmaMessages(prompt),
    tools: offered.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema })),
  });
  let forcedPrefix = '';
  if (offered.length > 0 && toolChoice?.type === 'tool') forcedPrefix = `${FG.startCall}call:${offered[0].name}{`;
  else if (offered.length > 0 && toolChoice?.type === 'required') forcedPrefix = `${FG.startCall}call:`;
  text += forcedPrefix;

  // Only our own markers become special tokens; everything else is tokenized as plain text.
  const promptText = LlamaText(
    splitFunctionGemmaControlTokens(text).map((piece, index) => (index % 2 === 1 ? new SpecialTokensText(piece) : piece)),
  );
  let tokens = tokenizeCached(model, promptText);
  const bos = model.tokens.bos;
  if (bos != null && tokens[0] !== bos) tokens = [bos, ...tokens];

  const generate: PreparedGeneration['generate'] = async ({ sequence, maxTokens, writer }): Promise<LanguageModelV3FinishReason> => {
    let callIndex = 0;
    const handle = (parts: FunctionGemmaOutputPart[]) => {
      for (const part of parts) {
        if (part.type === 'text') writer.text(part.text);
        else writer.toolCall(callIndex++, part.name, JSON.stringify(part.arguments));
      }
    };
    const parser = new FunctionGemmaStreamParser();
    handle(parser.push(forcedPrefix));
    const generated: Token[] = [];
    let released = '';
    const flush = (final: boolean) => {
      let full = model.detokenize(generated, true);
      // A multi-byte character split across tokens decodes to U+FFFD until its last token arrives.
      if (!final && full.endsWith('\uFFFD')) full = full.slice(0, -1);
      if (full.length <= released.length) return;
      const delta = full.slice(released.length);
      released = full;
      handle(parser.push(delta));
    };

    const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
    try {
      const stopTriggers = [...FUNCTIONGEMMA_STOP_SEQUENCES.map((marker) => LlamaText(new SpecialTokensText(marker))), ...(request.stopSequences ?? [])];
      const result = await completion.generateCompletionWithMeta(tokens, {
        ...samplingOptions(request, maxTokens),
        customStopTriggers: stopTriggers,
        onToken: (chunk) => {
          generated.push(...chunk);
          flush(false);
        },
      });
      throwIfAborted(result.metadata.stopReason, request.signal);
      flush(true);
      handle(parser.end());
      return finishReasonOf(result.metadata.stopReason, callIndex);
    } finally {
      completion.dispose({ disposeSequence: false });
    }
  };
  return { tokens, generate };
}
