import type { AgentOutput } from '../contracts/agent-output.js';
import type { ProcessOptions, PromptInput } from './agent.js';
import type { AgentCore } from './agent-core.js';
import { permissionsOf } from './agent-core.js';
import { errorInfo } from './agent-notices.js';
import { promptText } from './convert-prompt.js';
import { permissionsCommand } from './permissions-command.js';
import type { LiveSession } from './session-manager.js';
import { steerRunningTurn } from './steer-running-turn.js';
import { validateContentParts } from './validate-content-parts.js';

/**
 * `Agent.process`: checks the prompt, opens the session, then answers `/permissions` itself,
 * steers the running turn, or queues a turn. Failures are `error` events, never exceptions.
 */
export async function* processPrompt(core: AgentCore, input: PromptInput, options: ProcessOptions = {}): AsyncGenerator<AgentOutput> {
  const { sessionId } = input;
  if (core.stopped) {
    yield { type: 'error', sessionId, error: { code: 'agent_stopped', message: 'The agent is stopping' } };
    return;
  }
  // Checked before anything is stored: a saved undecodable attachment would fail every later turn.
  const problem = validateContentParts(input.prompt);
  if (problem) {
    yield { type: 'error', sessionId, error: { code: 'invalid_input', message: `${problem.path} ${problem.reason}` } };
    return;
  }
  let live: LiveSession;
  try {
    live = await (await core.manager()).open(sessionId);
  } catch (error) {
    yield { type: 'error', sessionId, error: errorInfo(error, 'session_not_found') };
    return;
  }
  await live.ready;
  try {
    yield* answerOrRun(core, live, input, options);
  } catch (error) {
    // Fenced out: another process took the session over while this one was frozen. The turn
    // stops here; the next request on the session loads it again (see LocalSessionManager.open).
    if (!(error instanceof Error && 'code' in error && error.code === 'session_in_use')) throw error;
    yield { type: 'error', sessionId, error: errorInfo(error, 'session_in_use') };
  }
}

async function* answerOrRun(core: AgentCore, live: LiveSession, input: PromptInput, options: ProcessOptions): AsyncGenerator<AgentOutput> {
  const { sessionId, prompt } = input;
  const reply = permissionsCommand(promptText(prompt), { cwd: live.info.cwd, permissions: permissionsOf(core, live), config: core.policy.rules });
  if (reply !== undefined) {
    // Answered by the agent itself: not part of the model's history.
    yield { type: 'user-message', sessionId, content: prompt };
    yield { type: 'text-delta', sessionId, text: reply };
    yield { type: 'turn-end', sessionId, stopReason: 'end_turn' };
    return;
  }
  let announce = true;
  if (live.running && (options.sendMode ?? core.settings.sendMode) === 'steer') {
    const steered = yield* steerRunningTurn(live, input, options.signal);
    if (steered) return;
    announce = false;
  }
  yield* core.runQueued(live, input, { processOptions: options, signal: options.signal, announce });
}
