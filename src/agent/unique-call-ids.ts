import type { ModelMessage } from 'ai';
import type { StepOutcome } from './stream-model-step.js';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The tool-call ids a history holds: those a new call must not take again. */
export function callIdsOf(messages: readonly ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') ids.add(part.toolCallId);
  }
  return ids;
}

/**
 * Gives each call of a reply an id of its own in the session: the provider's, unless it is empty
 * or already taken (some local servers number every reply's calls from `call_0`, or send none).
 * Two calls of one id would be one call to an ACP client (its card updated by the other) and to
 * the model (which result is whose). A new id is 9 letters and digits, the strictest provider's
 * shape (Mistral's). The reply's pieces follow their calls, which they list in the same order.
 */
export function uniqueCallIds(outcome: StepOutcome, taken: Set<string>): void {
  const pieces = outcome.pieces.filter((piece) => piece.type === 'tool-call');
  outcome.toolCalls.forEach((call, index) => {
    let id = call.toolCallId;
    while (id === '' || taken.has(id)) id = freshId();
    taken.add(id);
    if (id === call.toolCallId) return;
    outcome.toolCalls[index] = { ...call, toolCallId: id };
    const piece = pieces[index];
    if (piece) piece.toolCallId = id;
  });
}

function freshId(): string {
  let id = '';
  for (let i = 0; i < 9; i++) id += ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)];
  return id;
}
