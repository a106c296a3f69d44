import type { StoredAgentOutput } from '../contracts/agent-output.js';
import type { SessionInfo, SessionMode } from './agent.js';
import type { McpServerConfig } from '../config/schema.js';
import type { LoadedEventRecord, StoredSession } from '../storage/session-records.js';

const MODES: readonly string[] = ['default', 'accept-edits', 'plan'] satisfies SessionMode[];

/** A stored session as the core sees it: an unknown mode falls back to `default`. */
export function sessionInfoFromRecord(session: StoredSession): SessionInfo {
  return {
    sessionId: session.sessionId,
    cwd: session.cwd,
    title: session.title,
    mode: MODES.includes(session.mode) ? (session.mode as SessionMode) : 'default',
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    // Stored as the client sent them in session/new (already validated then).
    mcpServers: session.mcpServers as McpServerConfig[],
    ...(session.owner === undefined ? {} : { owner: session.owner }),
  };
}

/**
 * Stored events as the core's events. Only the core writes them (EventRecorder,
 * recoverInterruptedReply), and the store already skipped rows without a string `type`.
 */
export function agentOutputsFromRecords(records: readonly LoadedEventRecord[]): StoredAgentOutput[] {
  return records as readonly unknown[] as StoredAgentOutput[];
}
