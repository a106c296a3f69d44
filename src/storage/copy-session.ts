import type { NewSession, StoredSession } from './session-records.js';
import type { SessionStorage } from './session-storage.js';
import { StorageError } from './storage-error.js';

/**
 * A fork through the driver seam, for stores that cannot copy in one transaction of their own
 * (PostgreSQL, or a fork from one driver into another): the new session is created, then its
 * messages, events, tool calls and settings are written in order. A failure part-way deletes
 * the half-made fork, so it exists whole or not at all.
 */
export async function copySession(
  from: SessionStorage,
  sourceId: string,
  target: NewSession,
  into: SessionStorage,
  settings: Record<string, unknown>,
): Promise<StoredSession> {
  if (!(await from.getSession(sourceId))) throw new StorageError('session_not_found', `Session "${sourceId}" not found`, { path: from.location, sessionId: sourceId });
  const [messages, events, calls, ownSettings] = await Promise.all([
    from.loadMessages(sourceId),
    from.loadEvents(sourceId),
    from.loadToolCalls(sourceId),
    from.settings.get(sourceId),
  ]);
  const created = await into.createSession(target);
  try {
    await into.appendMessages(created.sessionId, messages);
    await into.appendEvents(created.sessionId, events.map(({ sessionId: _from, ...event }) => event));
    for (const call of calls) {
      await into.recordToolCall({ sessionId: created.sessionId, toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, status: call.status });
      if (call.status === 'completed' || call.status === 'failed') {
        await into.finishToolCall({ sessionId: created.sessionId, toolCallId: call.toolCallId, status: call.status, result: call.result });
      }
    }
    for (const [key, value] of Object.entries({ ...ownSettings, ...settings })) if (value !== undefined) await into.settings.set(created.sessionId, key, value);
    return created;
  } catch (error) {
    await into.deleteSession(created.sessionId).catch(() => undefined);
    throw error;
  }
}
