import type { SessionInfo } from '../agent/agent.js';

/** The session an id names among a project's sessions (the id, or any unique beginning of one), or why none. */
export type SessionMatch = { session: SessionInfo } | { problem: string; ambiguous: boolean };

export function matchSession(sessions: readonly SessionInfo[], id: string, cwd: string): SessionMatch {
  const exact = sessions.find((session) => session.sessionId === id);
  if (exact) return { session: exact };
  const matches = sessions.filter((session) => session.sessionId.startsWith(id));
  if (matches.length === 1) return { session: matches[0]! };
  if (matches.length === 0) return { problem: `no session ${id} in ${cwd} (plaited-agent sessions list shows them)`, ambiguous: false };
  return { problem: `${id} names ${matches.length} sessions (${matches.map((s) => s.sessionId).join(', ')}): give more of the id`, ambiguous: true };
}
