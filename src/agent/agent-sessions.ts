import type { SessionManager } from './agent.js';
import type { AgentCore } from './agent-core.js';
import { drainingError } from './stop-agent.js';

/**
 * `Agent.sessions`: the session manager, opened on first use; a mode change is published, a closed
 * session's calls and commands stop. Once the agent is stopping, only `close` is let through: the
 * rest would open sessions (take leases) or read a store that is about to close.
 */
export function agentSessions(core: AgentCore): SessionManager {
  const manager = async () => {
    if (core.stopped) throw drainingError();
    return core.manager();
  };
  const release = async (id: string) => {
    core.runningCalls.forget(id);
    await core.background.stopSession(id);
  };
  return {
    create: async (options) => {
      const info = await (await manager()).create(options);
      core.events.fresh.add(info.sessionId);
      return info;
    },
    fork: async (id, options) => {
      const info = await (await manager()).fork(id, options);
      core.events.fresh.add(info.sessionId);
      return info;
    },
    get: async (id, cwd) => (await manager()).get(id, cwd),
    list: async (options) => (await manager()).list(options),
    activate: async (id, cwd) => (await (await manager()).open(id, cwd)).info,
    history: async (id, cwd) => (await manager()).history(id, cwd),
    replay: async (id, cwd, signal) => (await manager()).replay(id, cwd, signal),
    setMode: async (id, mode) => {
      await (await manager()).setMode(id, mode);
      core.events.publish({ type: 'mode-change', sessionId: id, modeId: mode });
    },
    setOptions: async (id, options) => (await manager()).setOptions(id, options),
    close: async (id, options) => {
      if (options?.ifIdle && core.background.running(id).length > 0) return;
      const opened = await core.manager();
      if (options?.ifIdle && opened.liveSessions().some((live) => live.info.sessionId === id && live.running)) return;
      await release(id);
      await opened.close(id);
    },
    delete: (id) => release(id).then(async () => (await manager()).delete(id)),
  };
}
