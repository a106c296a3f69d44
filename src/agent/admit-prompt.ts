import type { AgentOutput } from '../contracts/agent-output.js';
import type { PromptInput } from './agent.js';
import type { AgentCore } from './agent-core.js';
import { permissionsOf } from './agent-core.js';
import { errorInfo } from './agent-notices.js';
import { drainingError } from './stop-agent.js';
import { promptText } from './convert-prompt.js';
import { permissionsCommand } from './permissions-command.js';
import { answerExtensionCommand, type CommandOutcome } from './extension-command.js';
import type { LiveSession } from './session-manager.js';
import { userMessageEvent } from './user-message-event.js';
import { validateContentParts } from './validate-content-parts.js';

/** A prompt let in (its live session, and its input: a command's turn replaces the user's), or the events that answer it without a turn. */
export type Admission = { live: LiveSession; input: PromptInput } | { answer: AgentOutput[] };

/** A prompt that reaches a stopping agent: answered `agent_draining`, no turn. */
export function drainingAnswer(sessionId: string): { answer: AgentOutput[] } {
  return { answer: [{ type: 'error', sessionId, error: errorInfo(drainingError(), 'agent_draining') }] };
}

/**
 * Before a turn: the agent is running, the prompt's content is valid (checked before anything
 * is stored: a saved undecodable attachment would fail every later turn), the session opens,
 * and `/permissions` (and an extension's own command, like `/mcp`) is answered by the agent itself
 * (not part of the model's history). A stop that begins meanwhile waits for the admission.
 */
export async function admitPrompt(core: AgentCore, input: PromptInput): Promise<Admission> {
  if (core.stopped) return drainingAnswer(input.sessionId);
  return core.admitted.run(() => admit(core, input));
}

async function admit(core: AgentCore, input: PromptInput): Promise<Admission> {
  const { sessionId, prompt } = input;
  const problem = validateContentParts(prompt);
  if (problem) return { answer: [{ type: 'error', sessionId, error: { code: 'invalid_input', message: `${problem.path} ${problem.reason}` } }] };
  let live: LiveSession;
  try {
    live = await (await core.manager()).open(sessionId);
  } catch (error) {
    return { answer: [{ type: 'error', sessionId, error: errorInfo(error, 'session_not_found') }] };
  }
  await live.ready;
  const text = promptText(prompt);
  const reply =
    permissionsCommand(text, { cwd: live.info.cwd, permissions: permissionsOf(core, live), config: core.policy.rules }) ??
    (await answerExtensionCommand(core.extensions.list, text, { sessionId, cwd: live.info.cwd }));
  if (reply === undefined) return { live, input };
  if (typeof reply !== 'string') return commandTurn(reply, live, input);
  return {
    answer: [
      userMessageEvent(input),
      { type: 'text-delta', sessionId, text: reply },
      { type: 'turn-end', sessionId, stopReason: 'end_turn' },
    ],
  };
}

/**
 * A command that starts a turn (an MCP prompt): its content replaces the text the user typed;
 * what else the user attached (an image, a file) follows it. The turn is the user's in every
 * other way: the same policy and questions, nothing re-read as a command.
 */
function commandTurn(outcome: Exclude<CommandOutcome, string>, live: LiveSession, input: PromptInput): Admission {
  const { sessionId } = input;
  if ('error' in outcome) return { answer: [{ type: 'error', sessionId, error: outcome.error }] };
  const prompt = [...outcome.turn, ...input.prompt.filter((part) => part.type !== 'text')];
  const problem = validateContentParts(prompt);
  if (problem) return { answer: [{ type: 'error', sessionId, error: { code: 'invalid_command_output', message: `the command's content is not valid: ${problem.path} ${problem.reason}` } }] };
  return { live, input: { ...input, prompt } };
}
