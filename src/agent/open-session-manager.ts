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
      // Each extension's `commands` is its part of the session's one list, announced once all have started.
      core.commands.starting(session.sessionId);
      const emitOf = (ext: { name: string }) => core.commands.emitFor(ext.name);
      await runHooks(extensions.list, 'onSessionStart', (ext) => ext.onSessionStart?.(session, emitOf(ext)), events.publish, session.sessionId);
      core.commands.started(session.sessionId, events.fresh.delete(session.sessionId));
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
      core.commands.forget(sessionId);
      events.fresh.delete(sessionId);
      return runHooks(extensions.list, 'onSessionClose', (ext) => ext.onSessionClose?.(sessionId), events.publish, sessionId);
    },
  });
}
