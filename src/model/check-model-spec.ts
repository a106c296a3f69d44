import type { PlaitedConfig } from '../config/schema.js';
import { ModelError } from './model-error.js';
import { MODEL_PROVIDERS } from './model-providers.js';

export { MODEL_PROVIDERS };

/**
 * Checks `agent.model` and `agent.baseURL` (and the sub-agents' models) without loading
 * anything, so a typo stops the start with the fix instead of failing the first prompt.
 * Throws a `ModelError` ('model_spec_invalid').
 */
export function checkModelSpec(config: Pick<PlaitedConfig, 'agent'> & Partial<Pick<PlaitedConfig, 'agents'>>): void {
  const { model, baseURL } = config.agent;
  if (typeof model === 'string') checkSpec(model, baseURL, 'agent.model');
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    if (typeof agent.model === 'string') checkSpec(agent.model, baseURL, `agents.${name}.model`);
  }
}

function checkSpec(spec: string, baseURL: string | undefined, where: string): void {
  const colon = spec.indexOf(':');
  const provider = colon === -1 ? '' : spec.slice(0, colon);
  const modelId = colon === -1 ? '' : spec.slice(colon + 1);
  if (colon === -1) {
    throw new ModelError(
      'model_spec_invalid',
      `${where} "${spec}" names no provider: write PROVIDER:MODEL, e.g. "openai-compatible:${spec}" (with --base-url), "anthropic:claude-sonnet-4-5" or "llama-cpp:./model.gguf". Providers: ${MODEL_PROVIDERS.join(', ')}.`,
    );
  }
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ModelError('model_spec_invalid', `${where} "${spec}": unknown provider "${provider}". Providers: ${MODEL_PROVIDERS.join(', ')}.`);
  }
  if (!modelId) throw new ModelError('model_spec_invalid', `${where} "${spec}" names no model after "${provider}:".`);
  // The generic provider has no endpoint of its own; every other HTTP provider's is overridden by a base URL.
  if (provider === 'openai-compatible' || (baseURL !== undefined && provider !== 'llama-cpp')) checkBaseURL(spec, baseURL);
}

function checkBaseURL(spec: string, baseURL: string | undefined): void {
  if (!baseURL) {
    throw new ModelError(
      'model_spec_invalid',
      `Model "${spec}" needs a base URL: set agent.baseURL or pass --base-url (e.g. http://127.0.0.1:11434/v1)`,
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(baseURL);
  } catch {
    url = undefined;
  }
  // `localhost:11434` parses as a URL whose scheme is "localhost:", which fetch rejects.
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const guess = `http://${baseURL.replace(/^\/+/, '')}`.replace(/\/?$/, baseURL.endsWith('/v1') ? '' : '/v1');
    throw new ModelError('model_spec_invalid', `Base URL "${baseURL}" is not an http(s) URL: did you mean --base-url ${guess}?`);
  }
}
