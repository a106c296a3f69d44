import { Role, type Message, type Part } from '@a2a-js/sdk';

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

/** Structured content (tool steps, permission questions) as an `application/json` data part. */
export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined };
}

/** A message from the agent within a task. */
export function agentMessage(ids: { taskId: string; contextId: string }, parts: Part[], metadata?: Record<string, unknown>): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}
