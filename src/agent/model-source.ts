import type { PlaitedConfig } from '../config/schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';

/** A model given to the agent: an object, or a function called each time it is needed. */
export type ModelOption = ResolvedLanguageModel | (() => Promise<ResolvedLanguageModel>);

/**
 * The model as given (an object, or a function called each time), else `config.agent.model`
 * resolved on first use. A failed resolution is not cached: the user may fix the endpoint and retry.
 */
export function modelSource(config: PlaitedConfig, model?: ModelOption, debug?: (message: string) => void): () => Promise<ResolvedLanguageModel> {
  if (typeof model === 'function') return model;
  if (model) return async () => model;
  return memoizeUntilFailure(() => import('../model/resolve-model.js').then(({ resolveModel }) => resolveModel(config.agent, { log: debug })));
}
