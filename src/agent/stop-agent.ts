import type { AgentCore } from './agent-core.js';

/** `Agent.stop`: background commands stop, running turns are cancelled and waited for, sessions, extensions and own stores close. */
export async function stopAgent(core: AgentCore): Promise<void> {
  core.stopped = true;
  await core.background.stopAll();
  const opened = core.openedManager();
  if (opened) {
    const manager = await opened;
    for (const live of manager.liveSessions()) {
      live.running?.controller.abort();
      await live.tail;
      await manager.close(live.info.sessionId);
    }
  }
  await core.extensions.closeAll();
  await core.ownStores()?.closeAll();
}
