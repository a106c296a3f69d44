import type { AgentExtension } from '../agent/agent-extension.js';

/** An extension that tells each session's client `message` once, as a warning notice when the session first starts. */
export function sessionNotice(name: string, message: string): AgentExtension {
  const told = new Set<string>();
  return {
    name,
    onSessionStart(session, emit) {
      if (told.has(session.sessionId)) return;
      told.add(session.sessionId);
      emit({ type: 'notice', sessionId: session.sessionId, level: 'warning', message });
    },
  };
}
