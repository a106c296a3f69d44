import type { ModelMessage } from 'ai';
import type { LiveSession } from './session-manager.js';

/** What the error of the refused turn adds once its prompt left the history. */
export const PROMPT_LEFT_OUT =
  "Your message was left out of the conversation (the model never read it), so the session's next prompt is not refused for it: " +
  'send it in smaller parts, or attach the file as a link for the agent to read in windows.';

/**
 * The turn's prompt, refused by the provider as longer than the model's context before the model
 * read a word of it: when it is most of what the history holds, it is what overflowed, and it
 * leaves the model-facing history (the store's and the session's) for a short note, or every later
 * prompt of the session would be refused for it too. The user's record (the events a load replays)
 * keeps it. `undefined`: the history overflowed, not the prompt, and stays as it is.
 */
export async function dropOverflowingPrompt(live: LiveSession): Promise<string | undefined> {
  const prompt = live.messages.at(-1);
  if (prompt?.role !== 'user') return undefined;
  const size = JSON.stringify(prompt.content).length;
  if (size * 2 < JSON.stringify(live.messages).length) return undefined;
  const note: ModelMessage = {
    role: 'user',
    content: `[A message of ${size} characters was left out here: it did not fit the model's context, and the model never read it.]`,
  };
  // The store first: memory never holds what the store lacks.
  await live.store.replaceMessages(live.info.sessionId, [...live.messages.slice(0, -1), note]);
  live.messages.splice(-1, 1, note);
  return PROMPT_LEFT_OUT;
}
