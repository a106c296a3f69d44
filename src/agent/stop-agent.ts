import type { AgentCore } from './agent-core.js';
import { AgentError } from './agent-error.js';
import type { LocalSessionManager } from './session-manager.js';

/** The abort reason of a turn the agent's stop cut short: its reply is recorded as interrupted (run-session-turn.ts). */
export const STOPPING = new AgentError('agent_draining', 'The agent stopped before this turn ended');

/** What a prompt, a session request (and `/readyz`) hear once the agent is stopping. */
export function drainingError(): AgentError {
  return new AgentError(
    'agent_draining',
    'This plaited-agent is draining (shutting down): it takes no new turns and finishes the running ones; send the prompt to another replica, or again once this one has restarted',
  );
}

/**
 * Runs `work` (a prompt's admission, a session request) unless the agent is stopping, which
 * answers `agent_draining`; `stop` waits for work let in before it closes sessions and stores.
 */
export function whileRunning<T>(core: AgentCore, work: () => Promise<T>): Promise<T> {
  if (core.stopped) return Promise.reject(drainingError());
  return core.admitted.run(work);
}

/**
 * `Agent.stop`: new turns are refused at once, and what was let in just before (an admission, a
 * session request) is waited for; running ones get up to `graceMs` to finish, then
 * are cancelled (their replies marked interrupted) and waited for; then background commands stop,
 * sessions close (their leases released), extensions and the agent's own stores close.
 */
export async function stopAgent(core: AgentCore, options: { graceMs?: number } = {}): Promise<void> {
  core.stopped = true;
  await core.admitted.settled();
  const opened = core.openedManager();
  const manager = opened ? await opened.catch(() => undefined) : undefined;
  if (manager) await finishTurns(manager, options.graceMs ?? 0);
  await core.background.stopAll();
  if (manager) {
    for (const live of manager.liveSessions()) {
      live.running?.controller.abort(STOPPING);
      await live.tail;
      await manager.close(live.info.sessionId);
    }
    await manager.closesSettled();
  }
  await core.extensions.closeAll();
  await core.ownStores()?.closeAll();
}

/** Waits up to `graceMs` for every live session's turns (queued ones included), then cancels what still runs. */
async function finishTurns(manager: LocalSessionManager, graceMs: number): Promise<void> {
  const sessions = manager.liveSessions();
  if (graceMs > 0 && sessions.some((live) => live.running)) {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(sessions.map((live) => live.tail)), grace]);
    clearTimeout(timer);
  }
  for (const live of manager.liveSessions()) live.running?.controller.abort(STOPPING);
  await Promise.all(manager.liveSessions().map((live) => live.tail));
}
