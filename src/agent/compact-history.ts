import type { ModelMessage, ToolModelMessage } from 'ai';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { completeText } from './complete-text.js';

/**
 * Compaction of the history sent to the model. The stored history (SQLite) is never
 * touched: only `live.messages`, what the next request carries, shrinks.
 */

const sizes = new WeakMap<ModelMessage, number>();

/** A cheap token estimate (4 characters a token), cached per message object so a turn costs only its new messages. */
export function estimateTokens(messages: readonly ModelMessage[], system = ''): number {
  let chars = system.length;
  for (const message of messages) {
    let size = sizes.get(message);
    if (size === undefined) {
      size = JSON.stringify(message.content).length;
      sizes.set(message, size);
    }
    chars += size;
  }
  return Math.ceil(chars / 4);
}

/** The token budget past which a turn compacts first: `compactAt` <= 1 is a fraction of the window. */
export function compactionLimit(compactAt: number, contextWindow: number): number {
  return compactAt <= 1 ? Math.floor(compactAt * contextWindow) : compactAt;
}

/** Indexes of user messages that open a turn (tool results in xml format are user messages too, but start with `<tool_result`). */
export function turnStarts(messages: readonly ModelMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    const first = typeof message.content === 'string' ? message.content : message.content[0]?.type === 'text' ? message.content[0].text : '';
    if (!first.startsWith('<tool_result')) starts.push(index);
  });
  return starts;
}

const STUB = '[output truncated by compaction; re-run the tool if you need it]';

/** Tool outputs in turns older than the last `keepTurns` become a stub. Returns a new array; unchanged messages are reused. */
export function truncateOldToolOutputs(messages: readonly ModelMessage[], keepTurns: number): ModelMessage[] {
  const starts = turnStarts(messages);
  const cut = starts.length > keepTurns ? starts[starts.length - keepTurns]! : 0;
  return messages.map((message, index) => {
    return index >= cut || message.role !== 'tool' ? message : stubToolResults(message);
  });
}

/** Stubs every tool output but those of the last `keepLast` tool messages (inside one long turn). */
export function stubToolOutputsExceptLast(messages: readonly ModelMessage[], keepLast: number): ModelMessage[] {
  let kept = 0;
  const out = [...messages];
  for (let index = out.length - 1; index >= 0; index--) {
    const message = out[index]!;
    if (message.role !== 'tool') continue;
    if (kept++ < keepLast) continue;
    out[index] = stubToolResults(message);
  }
  return out;
}

function stubToolResults(message: ToolModelMessage): ToolModelMessage {
  return {
    ...message,
    content: message.content.map((part) => (part.type === 'tool-result' ? { ...part, output: { type: 'text' as const, value: STUB } } : part)),
  };
}

const SUMMARY_MAX_TOKENS = 1024;

export interface CompactionResult {
  messages: ModelMessage[];
  summary: string;
}

/**
 * Summarises every turn but the last `keepTurns` into one message, through the model.
 * Returns undefined when there is nothing old enough to summarise.
 */
export async function summariseOldTurns(options: {
  model: ResolvedLanguageModel;
  messages: readonly ModelMessage[];
  keepTurns: number;
  signal: AbortSignal;
}): Promise<CompactionResult | undefined> {
  const starts = turnStarts(options.messages);
  const keepFrom = starts.length > options.keepTurns ? starts[starts.length - Math.max(1, options.keepTurns)]! : 0;
  if (keepFrom <= 0) return undefined;
  const older = options.messages.slice(0, keepFrom);
  const summary =
    (await completeText({
      model: options.model,
      system:
        'You compact a conversation between a user and a coding agent. Summarise it in one message: the goals, ' +
        'decisions, files touched, facts learned and open tasks. Be specific and brief. Answer with the summary only.',
      messages: [...older, { role: 'user', content: 'Summarise the conversation so far for your own later use.' }],
      signal: options.signal,
      // A summary longer than this would not save much (and a degenerate local model would fill its context).
      maxOutputTokens: SUMMARY_MAX_TOKENS,
    })) || '(no summary)';
  const head: ModelMessage = { role: 'user', content: [{ type: 'text', text: `[Summary of the earlier conversation]\n${summary}` }] };
  return { messages: [head, ...options.messages.slice(keepFrom)], summary };
}
