import type { PlaitedConfig } from '../config/schema.js';
import type { NamedModel } from '../config/named-model-schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { SessionOptions } from './agent.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';

/** The id of the configured `agent.model` among the choices. */
export const DEFAULT_MODEL_ID = 'default';

export interface ModelChoice {
  id: string;
  name: string;
  description?: string;
  reasoningEfforts: readonly string[];
}

/** The configured model first, then every `agent.models` entry: what a client may pick per session. */
export function modelChoices(config: PlaitedConfig): ModelChoice[] {
  const configured = config.agent.model;
  const current: ModelChoice = {
    id: DEFAULT_MODEL_ID,
    name: typeof configured === 'string' ? configured : configured ? `${configured.provider}:${configured.modelId}` : 'Default model',
    description: 'The model from the configuration',
    reasoningEfforts: [],
  };
  return [
    current,
    ...config.agent.models.map((named) => ({
      id: named.name,
      name: named.name,
      description: named.description ?? named.model,
      reasoningEfforts: named.reasoningEfforts ?? [],
    })),
  ];
}

/**
 * The model a session's next step runs on: its chosen `agent.models` entry (resolved once per
 * name), else the configured model; with the chosen reasoning effort sent along when the entry allows it.
 */
export function createSessionModels(
  config: PlaitedConfig,
  configured: () => Promise<ResolvedLanguageModel>,
): (options: SessionOptions | undefined) => Promise<ResolvedLanguageModel> {
  const named = new Map<string, () => Promise<ResolvedLanguageModel>>();
  for (const entry of config.agent.models) named.set(entry.name, memoizeUntilFailure(() => resolveNamed(config, entry)));
  return async (options) => {
    const entry = options?.model ? config.agent.models.find((candidate) => candidate.name === options.model) : undefined;
    if (!entry) return configured();
    const model = await named.get(entry.name)!();
    const effort = options?.reasoningEffort;
    // Middleware wraps current-spec models only; an older one runs without the effort.
    if (!effort || !entry.reasoningEfforts?.includes(effort as never) || model.specificationVersion !== 'v3') return model;
    const { wrapLanguageModel } = await import('ai');
    // A native provider's model takes the effort its own way (a thinking budget, the Responses effort).
    const { sessionReasoningOptions } = await import('../model/provider-call-options.js');
    const native = sessionReasoningOptions(entry.model, effort);
    return wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v3',
        transformParams: async ({ params }) =>
          native
            ? native(params)
            : {
                ...params,
                providerOptions: { ...params.providerOptions, openaiCompatible: { ...params.providerOptions?.openaiCompatible, reasoningEffort: effort } },
              },
      },
    });
  };
}

async function resolveNamed(config: PlaitedConfig, entry: NamedModel): Promise<ResolvedLanguageModel> {
  const { resolveModel } = await import('../model/resolve-model.js');
  return resolveModel({
    ...config.agent,
    model: entry.model,
    baseURL: entry.baseURL ?? config.agent.baseURL,
    apiKey: entry.apiKey ?? config.agent.apiKey,
    headers: entry.headers ?? config.agent.headers,
  });
}
