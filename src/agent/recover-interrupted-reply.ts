import type { AssistantModelMessage } from 'ai';
import type { SessionStorage } from '../storage/session-storage.js';

/** Ends a reply that a crash cut short, in the history the model sees and in what `session/load` replays. */
export const INTERRUPTED_MARK = '[interrupted: the agent stopped before finishing this reply]';

/**
 * A process that died mid-reply left the streamed text as a draft: it becomes the reply's
 * assistant message (so the model's next history has it), and both it and the replayed text
 * end with INTERRUPTED_MARK. One transaction; returns the folded message, `undefined` when there was no draft.
 */
export async function recoverInterruptedReply(store: SessionStorage, sessionId: string): Promise<AssistantModelMessage | undefined> {
  let folded: AssistantModelMessage | undefined;
  await store.recoverDraft(sessionId, (draft) => {
    const mark = draft.text ? `\n\n${INTERRUPTED_MARK}` : INTERRUPTED_MARK;
    const content: Exclude<AssistantModelMessage['content'], string> = [];
    if (draft.reasoning) content.push({ type: 'reasoning', text: draft.reasoning });
    content.push({ type: 'text', text: `${draft.text}${mark}` });
    folded = { role: 'assistant', content };
    return { messages: [folded], events: [{ type: 'text-delta', sessionId, text: mark }] };
  });
  return folded;
}
