import type { SessionStores } from '../storage/session-storage.js';
import type { AgentCore } from './agent-core.js';
import { runHooks } from './agent-notices.js';
import { LocalSessionManager } from './session-manager.js';

/** The session manager over the agent's stores: a started session runs the extensions' `onSessionStart`, a forked one their `onSessionFork` first, a closed one their `onSessionClose`. */
export function openSessionManager(core: AgentCore, stores: SessionStores): LocalSessionManager {
  const { events, extensions } = core;
  return new LocalSessionManager(stores, core.settings.defaultMode, {
    onStart: async (session) => {
      await extensions.ensure(session.sessionId, events.publish);
      await runHooks(extensions.list, 'onSessionStart', (ext) => ext.onSessionStart?.(session, events.publish), events.publish, session.sessionId);
      if (events.fresh.delete(session.sessionId) && !events.announced.has(session.sessionId)) {
        events.publish({ type: 'commands', sessionId: session.sessionId, commands: [] });
      }
    },
    onFork: (from, to) => runHooks(extensions.list, 'onSessionFork', (ext) => ext.onSessionFork?.(from, to), events.publish, to.sessionId),
    onClose: (sessionId) => {
      events.announced.delete(sessionId);
      events.fresh.delete(sessionId);
      return runHooks(extensions.list, 'onSessionClose', (ext) => ext.onSessionClose?.(sessionId), events.publish, sessionId);
    },
  });
}
