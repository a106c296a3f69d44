import { TaskState, taskStateToJSON, type Message } from '@a2a-js/sdk';
import { agentMessage, textPart } from './a2a-messages.js';

const FINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/** A final state's A2A 0.3 name (`completed`, …), or `undefined` for a state that is not final. */
export function endedAs(state: TaskState | undefined): string | undefined {
  return state !== undefined && FINAL.has(state) ? taskStateToJSON(state).replace('TASK_STATE_', '').toLowerCase() : undefined;
}

/**
 * The reply to a message that reached its task after the task's final state was decided: a
 * message to this request alone, not an error (the SDK would turn an error into a `failed` task
 * over the task's real end), saying what to do instead.
 */
export function taskEndedReply(ids: { taskId: string; contextId: string }, ended: string): Message {
  const text = `Task ${ids.taskId} ended (${ended}) before this message reached it, so the message was not taken: send it again with the same contextId and no taskId to go on with the conversation.`;
  return agentMessage(ids, [textPart(text)], { error: { code: 'task_ended', message: text } });
}
