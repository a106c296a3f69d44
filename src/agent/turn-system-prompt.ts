import type { AgentCore } from './agent-core.js';
import type { TurnContext } from './agent-extension.js';
import { runHooksInOrder } from './agent-notices.js';
import type { LiveSession } from './session-manager.js';
import { baseSystemPrompt, PLAN_MODE_PROMPT } from './system-prompt.js';
import type { TurnOverrides } from './turn-overrides.js';

/** The turn's system prompt: the base and custom text, a sub-agent's, plan mode's, then each extension's part in order. */
export async function turnSystemPrompt(core: AgentCore, live: LiveSession, context: TurnContext, overrides?: TurnOverrides): Promise<string> {
  const prompts: string[] = [baseSystemPrompt({ cwd: live.info.cwd, custom: core.settings.systemPrompt })];
  if (overrides?.systemPrompt) prompts.push(overrides.systemPrompt);
  if (live.info.mode === 'plan') prompts.push(PLAN_MODE_PROMPT);
  await runHooksInOrder(
    core.extensions.list,
    'systemPrompt',
    async (extension) => {
      const part = await extension.systemPrompt?.(context);
      if (part) prompts.push(part);
    },
    context.emit,
    context.sessionId,
  );
  return prompts.join('\n\n');
}
