import type { CreateSessionOptions, ForkSessionOptions, SessionInfo, SessionManager, SessionMode, SessionOptions } from './agent.js';
import { AgentError } from './agent-error.js';

/** The local user: stdio clients, the main network token, and sessions stored before owners were recorded. */
export const LOCAL_PRINCIPAL = 'local';

/** Whether `principal` owns the session (a session without an owner is the local user's). */
export function ownsSession(principal: string, info: Pick<SessionInfo, 'owner'>): boolean {
  return (info.owner ?? LOCAL_PRINCIPAL) === principal;
}

/**
 * The agent's sessions as one principal sees them: it creates sessions it owns, and every
 * other session does not exist for it (`get` answers `undefined`, the rest throw
 * `session_not_found`), so a protocol answers "not found" and leaks nothing about it.
 */
export function ownedSessions(sessions: SessionManager, principal: string): SessionManager {
  const owned = async (sessionId: string, cwd?: string): Promise<SessionInfo | undefined> => {
    const info = await sessions.get(sessionId, cwd);
    return info && ownsSession(principal, info) ? info : undefined;
  };
  const require = async (sessionId: string, cwd?: string): Promise<SessionInfo> => {
    const info = await owned(sessionId, cwd);
    if (!info) throw new AgentError('session_not_found', `Session "${sessionId}" not found`);
    return info;
  };
  return {
    create: (options: CreateSessionOptions) => sessions.create({ ...options, owner: principal }),
    fork: async (sessionId: string, options: ForkSessionOptions) => {
      await require(sessionId, options.cwd);
      return sessions.fork(sessionId, { ...options, owner: principal });
    },
    get: owned,
    list: async (options) => (await sessions.list(options)).filter((info) => ownsSession(principal, info)),
    history: async (sessionId, cwd) => {
      await require(sessionId, cwd);
      return sessions.history(sessionId, cwd);
    },
    replay: async (sessionId, cwd, signal) => {
      await require(sessionId, cwd);
      return sessions.replay ? sessions.replay(sessionId, cwd, signal) : { history: await sessions.history(sessionId, cwd) };
    },
    setMode: async (sessionId: string, mode: SessionMode) => {
      await require(sessionId);
      return sessions.setMode(sessionId, mode);
    },
    activate: async (sessionId: string, cwd?: string) => {
      await require(sessionId, cwd);
      return sessions.activate(sessionId, cwd);
    },
    setOptions: async (sessionId: string, options: SessionOptions) => {
      await require(sessionId);
      return sessions.setOptions(sessionId, options);
    },
    close: async (sessionId, options) => {
      if (await owned(sessionId)) await sessions.close(sessionId, options);
    },
    delete: async (sessionId) => {
      if (await owned(sessionId)) await sessions.delete(sessionId);
    },
  };
}
