import { randomUUID } from 'node:crypto';
import type { StepToolCall } from './stream-model-step.js';
import type { AnyTool } from '../contracts/tool.js';

/**
 * Tool calls written as text, for models without native tool calling
 * (`agent.toolCallFormat: 'xml'`): `<tool_call>{"tool": "name", "args": {...}}</tool_call>`.
 */

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const BLOCK = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/** The calls in a model's text; a malformed block becomes a call with `invalidReason`, reported back to the model. */
export function parseTextToolCalls(text: string): StepToolCall[] {
  const calls: StepToolCall[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const body = match[1]!.trim();
    const toolCallId = `xml_${randomUUID().slice(0, 8)}`;
    const closed = match[0].endsWith(CLOSE);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      const reason = closed ? `not valid JSON (${(error as Error).message})` : 'the block has no closing </tool_call>';
      calls.push({ toolCallId, toolName: guessName(body), input: {}, invalidReason: `malformed <tool_call> block: ${reason}` });
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { tool?: unknown }).tool !== 'string') {
      calls.push({
        toolCallId,
        toolName: guessName(body),
        input: {},
        invalidReason: 'malformed <tool_call> block: expected {"tool": "<name>", "args": {...}}',
      });
      continue;
    }
    const { tool, args } = parsed as { tool: string; args?: unknown };
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      calls.push({ toolCallId, toolName: tool, input: {}, invalidReason: 'malformed <tool_call> block: "args" must be an object' });
      continue;
    }
    calls.push({ toolCallId, toolName: tool, input: args ?? {} });
  }
  return calls;
}

function guessName(body: string): string {
  return /"tool"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? 'tool_call';
}

/** The system prompt part that teaches the format and lists the tools. */
export function textToolPrompt(tools: readonly AnyTool[]): string {
  if (tools.length === 0) return '';
  const lines = [
    'To use a tool, write a block like this (one block per call, JSON inside):',
    `${OPEN}{"tool": "read_file", "args": {"path": "README.md"}}${CLOSE}`,
    'Then stop and wait: the results come back in <tool_result> blocks. Available tools:',
  ];
  for (const tool of tools) lines.push(`- ${tool.name}: ${tool.description}\n  args schema: ${JSON.stringify(tool.inputSchema)}`);
  return lines.join('\n');
}

/** Results for the next request, as one user message's text. */
export function textToolResults(results: ReadonlyArray<{ call: StepToolCall; text: string; isError: boolean }>): string {
  return results
    .map(({ call, text, isError }) => `<tool_result tool="${call.toolName}"${isError ? ' error="true"' : ''}>\n${text}\n</tool_result>`)
    .join('\n');
}

/**
 * Hides `<tool_call>` blocks from the streamed text: what could be the start of a block is
 * held back until it is known not to be one, so the client sees prose only.
 */
export class ToolCallTextFilter {
  #held = '';
  #inside = false;

  push(text: string): string {
    this.#held += text;
    let out = '';
    while (this.#held) {
      if (this.#inside) {
        const end = this.#held.indexOf(CLOSE);
        if (end < 0) {
          // Keep only what could be the start of the closing tag.
          this.#held = this.#held.slice(Math.max(0, this.#held.length - CLOSE.length + 1));
          return out;
        }
        this.#held = this.#held.slice(end + CLOSE.length);
        this.#inside = false;
        continue;
      }
      const start = this.#held.indexOf(OPEN);
      if (start >= 0) {
        out += this.#held.slice(0, start);
        this.#held = this.#held.slice(start + OPEN.length);
        this.#inside = true;
        continue;
      }
      const partial = partialPrefixLength(this.#held, OPEN);
      out += this.#held.slice(0, this.#held.length - partial);
      this.#held = this.#held.slice(this.#held.length - partial);
      return out;
    }
    return out;
  }

  /** The end of the stream: held text that never became a block. */
  flush(): string {
    const rest = this.#inside ? '' : this.#held;
    this.#held = '';
    return rest;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialPrefixLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
