/**
 * The model providers `agent.model` may name (`PROVIDER:MODEL`): the native APIs through the
 * AI SDK's own provider packages, named presets over the OpenAI-compatible chat API (a gateway
 * or a local server at its usual address), and the generic pair. Each names the environment
 * variable its key is read from; `agent.apiKey` wins over it, `--base-url` over `baseURL`.
 */
export interface ModelProviderInfo {
  /** How the model is called. */
  kind: 'anthropic' | 'openai' | 'google' | 'openai-compatible' | 'llama-cpp';
  /** The conventional variable holding the key (none: a local server or file). */
  keyEnv?: string;
  /** Other variables the provider's own docs tell users to set, read after `keyEnv`, in this order. */
  otherKeyEnvs?: readonly string[];
  /** The endpoint when `agent.baseURL` is not set (native providers: the SDK's own default). */
  baseURL?: string;
  /** Whether a call without a key is refused by the service (a local server never asks). */
  needsKey: boolean;
}

export const MODEL_PROVIDER_TABLE = {
  anthropic: { kind: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY', needsKey: true },
  openai: { kind: 'openai', keyEnv: 'OPENAI_API_KEY', needsKey: true },
  // Google's Gemini docs set GEMINI_API_KEY or GOOGLE_API_KEY (which wins there); the AI SDK reads its own name.
  google: { kind: 'google', keyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY', otherKeyEnvs: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'], needsKey: true },
  openrouter: { kind: 'openai-compatible', keyEnv: 'OPENROUTER_API_KEY', baseURL: 'https://openrouter.ai/api/v1', needsKey: true },
  deepseek: { kind: 'openai-compatible', keyEnv: 'DEEPSEEK_API_KEY', baseURL: 'https://api.deepseek.com/v1', needsKey: true },
  groq: { kind: 'openai-compatible', keyEnv: 'GROQ_API_KEY', baseURL: 'https://api.groq.com/openai/v1', needsKey: true },
  ollama: { kind: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', needsKey: false },
  lmstudio: { kind: 'openai-compatible', baseURL: 'http://127.0.0.1:1234/v1', needsKey: false },
  vllm: { kind: 'openai-compatible', keyEnv: 'VLLM_API_KEY', baseURL: 'http://127.0.0.1:8000/v1', needsKey: false },
  'llamacpp-server': { kind: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1', needsKey: false },
  'openai-compatible': { kind: 'openai-compatible', keyEnv: 'PLAITED_API_KEY', needsKey: false },
  'llama-cpp': { kind: 'llama-cpp', needsKey: false },
} as const satisfies Record<string, ModelProviderInfo>;

export type ModelProviderName = keyof typeof MODEL_PROVIDER_TABLE;

export const MODEL_PROVIDERS = Object.keys(MODEL_PROVIDER_TABLE) as ModelProviderName[];

/** The provider a `PROVIDER:MODEL` spec names, when it is one of the table's. */
export function modelProviderOf(spec: unknown): (ModelProviderInfo & { name: ModelProviderName }) | undefined {
  if (typeof spec !== 'string') return undefined;
  const colon = spec.indexOf(':');
  const name = colon === -1 ? '' : spec.slice(0, colon);
  if (!Object.hasOwn(MODEL_PROVIDER_TABLE, name)) return undefined;
  return { name: name as ModelProviderName, ...(MODEL_PROVIDER_TABLE[name as ModelProviderName] as ModelProviderInfo) };
}

/**
 * The key a provider's calls carry: `agent.apiKey`, else the provider's variable (then the others
 * its docs name), else `PLAITED_API_KEY`. An empty variable counts as unset.
 */
export function providerApiKey(
  provider: ModelProviderInfo,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (apiKey !== undefined) return apiKey;
  return providerKeyEnvs(provider).map((name) => env[name]).find((value) => value !== undefined && value !== '') ?? (env.PLAITED_API_KEY || undefined);
}

/** Where {@link providerApiKey} finds the key: `agent.apiKey`, the variable's name, or `none`. Never the key. */
export function providerKeySource(provider: ModelProviderInfo, apiKey: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (apiKey !== undefined) return 'agent.apiKey';
  return providerKeyEnvs(provider).find((name) => env[name] !== undefined && env[name] !== '') ?? (env.PLAITED_API_KEY ? 'PLAITED_API_KEY' : 'none');
}

/** The variables a provider's key is read from, in order (`PLAITED_API_KEY`, read last, aside). */
export function providerKeyEnvs(provider: ModelProviderInfo): string[] {
  return [...(provider.keyEnv ? [provider.keyEnv] : []), ...(provider.otherKeyEnvs ?? [])];
}
