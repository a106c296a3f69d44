import { ModelError } from './model-error.js';
import { setsAuthorization } from './base-url-credentials.js';
import { withQuery } from './base-url-query.js';
import { splitBaseURL } from './split-base-url.js';
import { modelProviderOf, providerApiKey } from './model-providers.js';

/** A model endpoint to ask for its models: a configured `PROVIDER:MODEL` with its connection. */
export interface ConfiguredModel {
  spec: string;
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** agent.model itself (the one `--model` and `--base-url` replace). */
  default?: boolean;
}

export interface EndpointModels {
  provider: string;
  /** The list URL that was asked. */
  url: string;
  models: Array<{ id: string; configured: boolean }>;
  /** Why the list could not be had (the other endpoints are still listed). */
  error?: string;
}

const DEFAULT_BASE = { anthropic: 'https://api.anthropic.com/v1', openai: 'https://api.openai.com/v1', google: 'https://generativelanguage.googleapis.com/v1beta' } as const;

/**
 * What each configured provider's endpoint offers, its own list API: OpenAI-compatible
 * `GET /models`, Ollama's `GET /api/tags`, Anthropic's and OpenAI's `GET /v1/models`, Gemini's
 * `GET /v1beta/models`; the configured models marked. One request per endpoint, bounded by
 * `timeoutMs`; an endpoint that fails is reported with its reason, never thrown.
 */
export async function listEndpointModels(configured: readonly ConfiguredModel[], options: { timeoutMs?: number; fetch?: typeof fetch } = {}): Promise<EndpointModels[]> {
  const endpoints = new Map<string, { provider: string; request: ListRequest; ids: Set<string> }>();
  for (const model of configured) {
    const provider = modelProviderOf(model.spec);
    if (!provider || provider.kind === 'llama-cpp') continue;
    const configuredBase = model.baseURL ?? provider.baseURL ?? (provider.kind === 'openai-compatible' ? undefined : DEFAULT_BASE[provider.kind]);
    if (!configuredBase) continue;
    // As the model's calls: a user and password on the base go as basic auth, never in the URL shown.
    const { base: withSlash, query, authorization } = splitBaseURL(configuredBase);
    const base = withSlash.replace(/\/+$/, '');
    const request = listRequest(provider.name, provider.kind, base, providerApiKey(provider, model.apiKey), model.headers);
    if (query) request.url = withQuery(request.url, query);
    if (authorization && !setsAuthorization(model.headers)) request.headers.authorization = authorization;
    const key = `${provider.name} ${request.url}`;
    const entry = endpoints.get(key) ?? { provider: provider.name, request, ids: new Set<string>() };
    entry.ids.add(model.spec.slice(model.spec.indexOf(':') + 1));
    endpoints.set(key, entry);
  }
  return Promise.all(
    [...endpoints.values()].map(async ({ provider, request, ids }) => {
      try {
        const listed = await fetchList(request, options);
        const models = listed.map((id) => ({ id, configured: ids.has(id) }));
        for (const id of ids) if (!listed.includes(id)) models.push({ id, configured: true });
        return { provider, url: request.url, models };
      } catch (error) {
        return { provider, url: request.url, models: [...ids].map((id) => ({ id, configured: true })), error: (error as Error).message };
      }
    }),
  );
}

interface ListRequest {
  url: string;
  headers: Record<string, string>;
  read: (body: unknown) => string[];
}

function listRequest(name: string, kind: string, base: string, apiKey: string | undefined, extra: Record<string, string> | undefined): ListRequest {
  const headers: Record<string, string> = { ...extra };
  if (kind === 'anthropic') {
    if (apiKey) headers['x-api-key'] = apiKey;
    headers['anthropic-version'] = '2023-06-01';
    return { url: `${base}/models?limit=1000`, headers, read: ids('data', 'id') };
  }
  if (kind === 'google') {
    if (apiKey) headers['x-goog-api-key'] = apiKey;
    return { url: `${base}/models?pageSize=1000`, headers, read: (body) => ids('models', 'name')(body).map((id) => id.replace(/^models\//, '')) };
  }
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (name === 'ollama') return { url: `${base.replace(/\/v1$/, '')}/api/tags`, headers, read: ids('models', 'name') };
  return { url: `${base}/models`, headers, read: ids('data', 'id') };
}

function ids(list: string, field: string): (body: unknown) => string[] {
  return (body) => {
    const items = (body as Record<string, unknown> | undefined)?.[list];
    if (!Array.isArray(items)) throw new Error(`the reply has no "${list}" list`);
    return items.map((item) => (item as Record<string, unknown>)?.[field]).filter((id): id is string => typeof id === 'string');
  };
}

async function fetchList(request: ListRequest, options: { timeoutMs?: number; fetch?: typeof fetch }): Promise<string[]> {
  const call = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await call(request.url, { headers: request.headers, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ModelError('model_unavailable', `cannot reach ${request.url} (${cause?.code ?? cause?.message ?? (error as Error).message})`, { cause: error });
  }
  const text = await response.text();
  if (!response.ok) {
    const hint = response.status === 401 || response.status === 403 ? ': check the API key' : '';
    throw new ModelError('model_unavailable', `${request.url} answered HTTP ${response.status} (${text.slice(0, 200)})${hint}`);
  }
  try {
    return request.read(JSON.parse(text));
  } catch (error) {
    throw new ModelError('model_unavailable', `${request.url} did not answer a model list (${(error as Error).message})`, { cause: error });
  }
}
