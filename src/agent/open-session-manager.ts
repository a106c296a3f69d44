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
    onServersChange: (session) =>
      runHooks(extensions.list, 'onSessionServersChange', (ext) => ext.onSessionServersChange?.(session, events.publish), events.publish, session.sessionId),
    // The extensions loaded: a one-shot `sessions delete` starts none (its command removes the plan file itself).
    onDelete: (session) => runHooks(extensions.list, 'onSessionDelete', (ext) => ext.onSessionDelete?.(session), events.publish, session.sessionId),
    onFork: async (from, to) => {
      // The fork starts next, which loads them anyway: its source's plan is copied first.
      await extensions.ensure(to.sessionId, events.publish);
      await runHooks(extensions.list, 'onSessionFork', (ext) => ext.onSessionFork?.(from, to), events.publish, to.sessionId);
    },
    onClose: (sessionId) => {
      events.announced.delete(sessionId);
      events.fresh.delete(sessionId);
      return runHooks(extensions.list, 'onSessionClose', (ext) => ext.onSessionClose?.(sessionId), events.publish, sessionId);
    },
  });
}
