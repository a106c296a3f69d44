import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { PlaitedConfig } from '../config/schema.js';
import { withBasicAuth } from './base-url-credentials.js';
import { withBaseURLQuery } from './base-url-query.js';
import { splitBaseURL, type BaseURLParts } from './split-base-url.js';
import { createModelFetch } from './model-fetch.js';
import { processModelCallLimiter } from './model-call-limiter.js';
import { ModelError } from './model-error.js';
import { providerApiKey, providerKeySource, type ModelProviderInfo, type ModelProviderName } from './model-providers.js';
import { providerCallOptions } from './provider-call-options.js';

/**
 * A remote (HTTP) model of the table's providers, through the AI SDK's own provider package
 * for it, each imported only here and only when used (cold start does not load them):
 *  - `anthropic:` the Messages API; `openai:` the Responses API; `google:` the Gemini API;
 *  - the presets and `openai-compatible:` the OpenAI-compatible chat API at their base URL.
 * `agent.baseURL` (`--base-url`) overrides any provider's endpoint.
 */
export async function createProviderModel(
  provider: ModelProviderInfo & { name: ModelProviderName },
  modelId: string,
  agentConfig: Pick<PlaitedConfig['agent'], 'maxConcurrentModelCalls' | 'baseURL' | 'apiKey' | 'headers' | 'reasoning'> & Partial<Pick<PlaitedConfig['agent'], 'retries' | 'modelTimeouts'>>,
  /** Wraps the model's fetch (a route's header clean-up). */
  wrapFetch: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch = (fetch) => fetch,
): Promise<LanguageModelV3> {
  const apiKey = providerApiKey(provider, agentConfig.apiKey);
  const configuredBase = agentConfig.baseURL ?? provider.baseURL;
  // `…/deployments/NAME?api-version=…`: the SDK gets the base; the query joins each call on its way
  // out, below the retries, so notices and errors name the URL without it (it may hold a key).
  // `https://user:pass@host/v1`: fetch refuses it; the pair goes as basic auth instead.
  const { base, query, authorization, password } = configuredBase === undefined ? ({} as Partial<BaseURLParts>) : splitBaseURL(configuredBase);
  const headers = withBasicAuth(agentConfig.headers, authorization);
  const queryKeys = [...(query ?? [])].filter(([name]) => /key|token|secret|sig/i.test(name)).map(([, value]) => value);
  const secrets = [apiKey, ...Object.values(headers ?? {}), ...queryKeys, password];
  const limited = createModelFetch(processModelCallLimiter(agentConfig.maxConcurrentModelCalls), {
    base: withBaseURLQuery((input, init) => globalThis.fetch(input, init), query),
    retries: agentConfig.retries,
    timeouts: agentConfig.modelTimeouts,
    provider: provider.name,
    // A route's calls carry the client's own headers, not a key of ours (routed-model.ts: apiKey '').
    keySource: keySourceOf(provider, agentConfig.apiKey, headers),
    secrets,
  });
  const settings = {
    // At most agent.maxConcurrentModelCalls connections at once; 429/5xx and resets retried within agent.retries.
    fetch: wrapFetch(limited),
    baseURL: base,
    apiKey,
    headers,
  };
  const model = await baseModel(provider, modelId, settings);
  const extra = providerCallOptions(provider.kind, agentConfig.reasoning);
  if (!extra) return model;
  const { wrapLanguageModel } = await import('ai');
  return wrapLanguageModel({ model, middleware: { specificationVersion: 'v3', transformParams: async ({ params }) => extra(params) } });
}

/**
 * Where the calls' key comes from, for a refused key's error to name. None: a route's calls carry
 * the client's own headers (routed-model.ts passes apiKey ''), and credentials in `agent.headers`
 * or the base URL may be what the server wanted, so "no key was sent" would mislead.
 */
function keySourceOf(provider: ModelProviderInfo, apiKey: string | undefined, headers: Record<string, string> | undefined): string | undefined {
  if (apiKey === '') return undefined;
  const source = providerKeySource(provider, apiKey);
  return source === 'none' && Object.keys(headers ?? {}).length > 0 ? undefined : source;
}

interface ProviderSettings {
  fetch: typeof fetch;
  baseURL: string | undefined;
  apiKey: string | undefined;
  headers: Record<string, string> | undefined;
}

async function baseModel(provider: ModelProviderInfo & { name: ModelProviderName }, modelId: string, settings: ProviderSettings): Promise<LanguageModelV3> {
  switch (provider.kind) {
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic(settings).languageModel(modelId);
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI(settings).responses(modelId);
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI(settings).languageModel(modelId);
    }
    case 'openai-compatible': {
      if (!settings.baseURL) {
        throw new ModelError(
          'model_spec_invalid',
          `Model "${provider.name}:${modelId}" needs a base URL: set agent.baseURL or pass --base-url (e.g. http://127.0.0.1:11434/v1)`,
        );
      }
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({ ...settings, baseURL: settings.baseURL, name: provider.name, includeUsage: true }).chatModel(modelId);
    }
    default:
      throw new ModelError('model_spec_invalid', `Provider "${provider.name}" is not an HTTP provider.`);
  }
}
