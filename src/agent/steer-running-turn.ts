import type { AgentOutput } from '../contracts/agent-output.js';
import type { PromptInput } from './agent.js';
import { toUserMessage } from './convert-prompt.js';
import type { LiveSession } from './session-manager.js';

/**
 * Steer: a message sent while a turn runs joins that turn before its next model step, and
 * supersedes the calls still waiting for approval. This stream ends once the turn took it
 * (true). When the turn ended before another model step, the message is stored as said and
 * gets a turn of its own (false).
 */
export async function* steerRunningTurn(live: LiveSession, input: PromptInput, signal: AbortSignal | undefined): AsyncGenerator<AgentOutput, boolean> {
  const { sessionId, prompt } = input;
  const userEvent: AgentOutput = { type: 'user-message', sessionId, content: prompt };
  const absorbing = live.running!.steering.push(toUserMessage(prompt), userEvent, signal);
  yield userEvent;
  const absorbed = await absorbing;
  if (absorbed || signal?.aborted) {
    yield { type: 'turn-end', sessionId, stopReason: absorbed ? 'end_turn' : 'cancelled' };
    return true;
  }
  live.store.appendEvents(sessionId, [userEvent]);
  return false;
}
