import type { AgentOutput } from '../contracts/agent-output.js';
import type { PromptInput } from './agent.js';
import type { AgentCore } from './agent-core.js';
import type { TurnContext } from './agent-extension.js';
import { promptText, toUserMessage } from './convert-prompt.js';
import { messageTranscript } from './message-transcript.js';
import type { LiveSession } from './session-manager.js';
import type { Runtime } from '../contracts/runtime.js';

/** A turn's context for extensions, and the notices raised before they can be yielded. */
export interface StartedTurn {
  context: TurnContext;
  /** Notices from hooks, waiting for the turn's stream to pass them on. */
  pending: AgentOutput[];
}

/**
 * Opens a turn: the context extensions see, the user message stored then held in memory
 * (when the write fails, memory does not hold what the store lacks), and a first title.
 * `parentSessionId`: a sub-agent's turn, for the session it works for.
 */
export async function startTurn(core: AgentCore, live: LiveSession, input: PromptInput, runtime: Runtime, signal: AbortSignal, parentSessionId?: string): Promise<StartedTurn> {
  const { sessionId } = live.info;
  const pending: AgentOutput[] = [];
  const intent = promptText(input.prompt);
  const turnStart = live.messages.length;
  const context: TurnContext = {
    sessionId,
    ...(parentSessionId ? { parentSessionId } : {}),
    cwd: live.info.cwd,
    additionalDirectories: live.info.options?.additionalDirectories ?? [],
    intent,
    signal,
    runtime,
    emit: (event) => pending.push(event),
    transcript: () => messageTranscript(live.messages.slice(turnStart)),
  };
  const userMessage = toUserMessage(input.prompt);
  await live.store.appendMessages(sessionId, [userMessage]);
  live.messages.push(userMessage);
  if (!live.info.title && intent) {
    // A title is cosmetic: a store error here must not become an unhandled rejection.
    void core
      .manager()
      .then((manager) => manager.setTitle(live, intent.split('\n')[0]!.slice(0, 80)))
      .catch(() => undefined);
  }
  return { context, pending };
}
