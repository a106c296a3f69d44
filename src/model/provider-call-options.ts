import type { LanguageModelV3CallOptions, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { modelProviderOf, type ModelProviderInfo } from './model-providers.js';

export type ReasoningLevel = 'low' | 'medium' | 'high';

/** Anthropic's thinking budget (tokens) and Gemini's per level. */
const THINKING_BUDGET: Record<ReasoningLevel, number> = { low: 2048, medium: 8192, high: 24576 };
const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } satisfies SharedV3ProviderOptions;

type Transform = (params: LanguageModelV3CallOptions) => LanguageModelV3CallOptions;

/**
 * What every call to a native provider adds to the agent's request (undefined: nothing):
 *  - Anthropic: cache breakpoints on the system prompt, on the tool list (the last tool) and on
 *    the conversation (its last message): the prefix every step of a session repeats, so it is
 *    read from the prompt cache (a tenth of the price) instead of paid again; with
 *    `agent.reasoning`, extended thinking with a budget.
 *  - OpenAI (Responses): reasoning summaries (`auto`), so a reasoning model's thinking reaches
 *    the client; with `agent.reasoning`, the effort.
 *  - Google: with `agent.reasoning`, thinking with its thoughts included and a budget.
 */
export function providerCallOptions(kind: ModelProviderInfo['kind'], reasoning: ReasoningLevel | undefined): Transform | undefined {
  switch (kind) {
    case 'anthropic':
      return (params) =>
        withProviderOptions(cacheBreakpoints(params), 'anthropic', reasoning ? { thinking: { type: 'enabled', budgetTokens: THINKING_BUDGET[reasoning] } } : undefined);
    case 'openai':
      return (params) => withProviderOptions(params, 'openai', { reasoningSummary: 'auto', ...(reasoning ? { reasoningEffort: reasoning } : {}) });
    case 'google':
      if (!reasoning) return undefined;
      return (params) => withProviderOptions(params, 'google', { thinkingConfig: { includeThoughts: true, thinkingBudget: THINKING_BUDGET[reasoning] } });
    default:
      return undefined;
  }
}

function withProviderOptions(params: LanguageModelV3CallOptions, provider: string, options: Record<string, unknown> | undefined): LanguageModelV3CallOptions {
  if (!options) return params;
  const own = (params.providerOptions?.[provider] ?? {}) as Record<string, unknown>;
  return { ...params, providerOptions: { ...params.providerOptions, [provider]: { ...options, ...own } as SharedV3ProviderOptions[string] } };
}

/**
 * Anthropic's four breakpoints (it caches everything up to each): the last system message, the
 * last tool, the last message, and the message before the model's last reply, where the previous
 * request put its own last one. So a request reads what the one before wrote whatever the step
 * added in between (Anthropic looks back only 20 blocks from a breakpoint for an earlier entry).
 */
function cacheBreakpoints(params: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  const lastSystem = params.prompt.findLastIndex((message) => message.role === 'system');
  const last = params.prompt.length - 1;
  const previous = params.prompt.findLastIndex((message) => message.role === 'assistant') - 1;
  const marked = (message: LanguageModelV3CallOptions['prompt'][number], index: number) =>
    index === lastSystem || (message.role !== 'system' && (index === last || index === previous));
  const prompt = params.prompt.map((message, index) => (marked(message, index) ? { ...message, providerOptions: { ...message.providerOptions, ...EPHEMERAL } } : message));
  const tools = params.tools?.map((tool, index, all) =>
    index === all.length - 1 && tool.type === 'function' ? { ...tool, providerOptions: { ...tool.providerOptions, ...EPHEMERAL } } : tool,
  );
  return { ...params, prompt, tools };
}

/**
 * A reasoning effort picked per session (ACP `reasoning_effort`) for a native provider's model:
 * the same options as `agent.reasoning` at that level (`minimal` counts as `low`). Undefined
 * for the OpenAI-compatible providers, which take the effort as `reasoning_effort` as it is.
 */
export function sessionReasoningOptions(spec: string, effort: string): Transform | undefined {
  const kind = modelProviderOf(spec)?.kind;
  if (kind !== 'anthropic' && kind !== 'openai' && kind !== 'google') return undefined;
  const level: ReasoningLevel = effort === 'medium' || effort === 'high' ? effort : 'low';
  return providerCallOptions(kind, level);
}
