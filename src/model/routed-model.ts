import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { PlaitedConfig } from '../config/schema.js';
import { ModelError } from './model-error.js';
import { modelProviderOf, type ModelProviderInfo, type ModelProviderName } from './model-providers.js';

/** The wire protocols a model can be routed through: Anthropic's Messages API, OpenAI's. */
export const ROUTE_PROTOCOLS = ['anthropic', 'openai'] as const;
export type RouteProtocol = (typeof ROUTE_PROTOCOLS)[number];

/**
 * Where a client sends the agent's model calls (ACP `providers/set`): an endpoint speaking one of
 * `ROUTE_PROTOCOLS`, and the headers every call carries (its credentials among them). Held in
 * memory by whoever routes; never stored, never logged.
 */
export interface ModelRoute {
  protocol: RouteProtocol;
  baseURL: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * The model `spec` (`PROVIDER:MODEL`) names, called through `route` instead of its own endpoint:
 * the same model id, sent to the route's base URL with only the route's headers (the agent's own
 * key never leaves for the client's endpoint).
 *  - `anthropic`: the Messages API (`@ai-sdk/anthropic`);
 *  - `openai`: the Responses API when the model is a native `openai:` one, else the chat
 *    completions API every OpenAI-compatible gateway speaks.
 */
export async function createRoutedModel(
  spec: string,
  route: ModelRoute,
  agentConfig: Pick<PlaitedConfig['agent'], 'maxConcurrentModelCalls' | 'reasoning'> & Partial<Pick<PlaitedConfig['agent'], 'retries' | 'modelTimeouts'>>,
): Promise<LanguageModelV3> {
  const own = modelProviderOf(spec);
  if (!own || own.kind === 'llama-cpp') {
    throw new ModelError('model_spec_invalid', `Model "${spec}" runs in-process: it cannot be routed through an endpoint.`);
  }
  const modelId = spec.slice(spec.indexOf(':') + 1);
  const headers = Object.fromEntries(Object.entries(route.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const provider: ModelProviderInfo & { name: ModelProviderName } =
    route.protocol === 'anthropic'
      ? { name: 'anthropic', kind: 'anthropic', needsKey: false }
      : own.kind === 'openai'
        ? { name: 'openai', kind: 'openai', needsKey: false }
        : { name: 'openai-compatible', kind: 'openai-compatible', needsKey: false };
  // An empty key, never the agent's own (config or environment): native SDKs insist on one, and
  // the empty header it makes is dropped on the way out unless the route's headers set it.
  // Loaded when first routed, like every provider (cold start loads none).
  const { createProviderModel } = await import('./create-provider-model.js');
  return createProviderModel(provider, modelId, { ...agentConfig, baseURL: route.baseURL, apiKey: '', headers }, withoutEmptyAuth);
}

/** A fetch that drops the empty key headers a native SDK adds when the route brings its own credentials. */
function withoutEmptyAuth(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    for (const name of ['x-api-key', 'authorization']) {
      const value = headers.get(name);
      if (value === '' || value === 'Bearer ') headers.delete(name);
    }
    return fetch(input, { ...init, headers });
  };
}
