import type { SessionManager } from './agent.js';
import type { AgentCore } from './agent-core.js';
import type { LocalSessionManager } from './session-manager.js';
import { whileRunning } from './stop-agent.js';

/**
 * `Agent.sessions`: the session manager, opened on first use; a mode change is published, a closed
 * session's calls and commands stop. Once the agent is stopping, only `close` is let through: the
 * rest would open sessions (take leases) or read a store that is about to close. A request let in
 * before the stop began is waited for by the stop (`whileRunning`).
 */
export function agentSessions(core: AgentCore): SessionManager {
  const withManager = <T>(work: (manager: LocalSessionManager) => Promise<T>) => whileRunning(core, async () => work(await core.manager()));
  const release = async (id: string) => {
    core.runningCalls.forget(id);
    await core.background.stopSession(id);
  };
  return {
    create: (options) =>
      withManager(async (manager) => {
        const info = await manager.create(options);
        core.events.fresh.add(info.sessionId);
        return info;
      }),
    fork: (id, options) =>
      withManager(async (manager) => {
        const info = await manager.fork(id, options);
        core.events.fresh.add(info.sessionId);
        return info;
      }),
    get: (id, cwd) => withManager((manager) => manager.get(id, cwd)),
    list: (options) => withManager((manager) => manager.list(options)),
    activate: (id, cwd) => withManager(async (manager) => (await manager.open(id, cwd)).info),
    history: (id, cwd) => withManager((manager) => manager.history(id, cwd)),
    replay: (id, cwd, signal) => withManager((manager) => manager.replay(id, cwd, signal)),
    setMode: (id, mode) =>
      withManager(async (manager) => {
        await manager.setMode(id, mode);
        core.events.publish({ type: 'mode-change', sessionId: id, modeId: mode });
      }),
    setOptions: (id, options) => withManager((manager) => manager.setOptions(id, options)),
    close: async (id, options) => {
      if (options?.ifIdle && core.background.running(id).length > 0) return;
      const opened = await core.manager();
      if (options?.ifIdle && opened.liveSessions().some((live) => live.info.sessionId === id && live.running)) return;
      await release(id);
      await opened.close(id);
    },
    delete: (id) => release(id).then(() => withManager((manager) => manager.delete(id))),
  };
}
