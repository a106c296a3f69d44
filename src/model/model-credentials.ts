import { modelProviderOf, providerApiKey, providerKeyEnvs } from './model-providers.js';

/** What the configured model needs to be called: the variable its key comes from, when it needs one. */
export interface ModelKeyNeed {
  /** The provider's conventional variable (`ANTHROPIC_API_KEY`, …; `PLAITED_API_KEY` for the generic endpoint). */
  envVar: string;
  /** Every variable the key is read from, `envVar` first (Gemini's docs name two more). */
  envVars: string[];
  /** Where the key is sent: the configured base URL or the provider's own endpoint. */
  endpoint: string;
}

/**
 * Whether `agent.model` can need an API key, and which variable holds it: a provider whose service
 * requires one (Anthropic, OpenAI, Gemini, OpenRouter, DeepSeek, Groq) unless `agent.baseURL` points
 * at this machine (a local proxy), and any OpenAI-compatible model on a non-loopback endpoint.
 * Local servers (Ollama, llama.cpp server) and in-process GGUF models never do.
 */
export function modelKeyNeed(agent: { model?: unknown; baseURL?: string }): ModelKeyNeed | undefined {
  const provider = modelProviderOf(agent.model);
  if (!provider || provider.kind === 'llama-cpp') return undefined;
  const endpoint = agent.baseURL ?? provider.baseURL;
  const remote = endpoint === undefined ? provider.needsKey : !isLoopbackURL(endpoint);
  if (!remote || (!provider.needsKey && agent.baseURL === undefined)) return undefined;
  const envVars = providerKeyEnvs(provider);
  return { envVar: envVars[0] ?? 'PLAITED_API_KEY', envVars: envVars.length > 0 ? envVars : ['PLAITED_API_KEY'], endpoint: endpoint ?? `the ${provider.name} API` };
}

/** Whether the key `need` names is missing: no `agent.apiKey`, none of the provider's variables, no `PLAITED_API_KEY`. */
export function modelKeyMissing(need: Pick<ModelKeyNeed, 'envVars'>, apiKey: string | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return !providerApiKey({ kind: 'openai-compatible', otherKeyEnvs: need.envVars, needsKey: true }, apiKey || undefined, env);
}

function isLoopbackURL(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
