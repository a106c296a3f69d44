/** The terminal states as A2A 0.3 names them (the SDK's messages give the 1.0 enum's number). */
const ENDED: Record<string, string> = { '3': 'completed', '4': 'failed', '5': 'canceled', '7': 'rejected' };
const MODIFIED = /^Task (.+) is in a terminal state \((\d+)\) and cannot be modified\.$/s;
const SUBSCRIBED = /^Task (.+) is in a terminal state \((\d+)\) and cannot be subscribed to\.$/s;

/**
 * The SDK's refusals of a peer's call on a task that has ended, which name the state by number
 * and say nothing of what to do, as a message that names the state and the next step. Any other
 * message comes back as it is.
 */
export function explainA2aRefusal(message: string): string {
  const modified = MODIFIED.exec(message);
  if (modified) {
    const [, id, state] = modified;
    return `Task ${id} is in a terminal state (${ENDED[state!] ?? state}) and takes no more messages: a task is one turn. Send a new message with the same contextId and no taskId to go on with the conversation.`;
  }
  const subscribed = SUBSCRIBED.exec(message);
  if (subscribed) {
    const [, id, state] = subscribed;
    return `Task ${id} is in a terminal state (${ENDED[state!] ?? state}): there is nothing left to stream. Read it with tasks/get (GetTask, GET /tasks/{id}).`;
  }
  return message;
}
