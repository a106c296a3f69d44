import type { CreateAgentOptions } from './create-agent-options.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';

/** Wraps a model for observation (logging each call, a telemetry span per call). */
export type ModelObserver = (model: ResolvedLanguageModel) => Promise<ResolvedLanguageModel>;

/**
 * The agent's values with every model they hand out observed: the turn model, a session's
 * chosen model and the sub-agents' models. The observers run in order, each wrapping the last.
 */
export function observeModels(values: CreateAgentOptions, observers: readonly ModelObserver[]): CreateAgentOptions {
  if (observers.length === 0) return values;
  const observe = async (model: ResolvedLanguageModel) => {
    let out = model;
    for (const observer of observers) out = await observer(out);
    return out;
  };
  const { model, sessionModel, subagents } = values;
  return {
    ...values,
    ...(model ? { model: typeof model === 'function' ? async () => observe(await model()) : () => observe(model) } : {}),
    ...(sessionModel ? { sessionModel: async (options) => observe(await sessionModel(options)) } : {}),
    ...(subagents ? { subagents: { ...subagents, resolveModel: async (spec) => observe(await subagents.resolveModel(spec)) } } : {}),
  };
}
