import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PlaitedConfig } from '../config/schema.js';
import { errorMessage } from '../errors/error-message.js';
import { withQuery } from '../model/base-url-query.js';
import { splitBaseURL } from '../model/split-base-url.js';
import { modelProviderOf, providerApiKey } from '../model/model-providers.js';
import type { DoctorCheck } from './doctor-check.js';

const NATIVE_BASE: Record<string, string> = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
};

/**
 * The configured model: its endpoint answers, the key is accepted, and it serves the model. One
 * listing request (`GET …/models`, Gemini's and Anthropic's per-model endpoint): no tokens spent.
 */
export async function checkModel(config: PlaitedConfig, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck> {
  const name = 'model';
  const spec = config.agent.model;
  if (spec === undefined) return { name, ok: false, detail: 'none configured', fix: 'set agent.model in .plaited/config.ts (plaited-agent init finds one) or pass --model' };
  if (typeof spec !== 'string') return { name, ok: true, detail: 'an AI SDK model object from the config (not checked)' };
  const provider = modelProviderOf(spec);
  const modelId = spec.slice(spec.indexOf(':') + 1);
  if (!provider) return { name, ok: false, detail: `${spec}: unknown provider`, fix: 'use PROVIDER:MODEL with a provider from plaited-agent --help' };
  if (provider.kind === 'llama-cpp') {
    const local = !/^(hf:|https?:)/.test(modelId);
    const ok = !local || existsSync(resolve(cwd, modelId));
    return { name, ok, detail: ok ? `${spec} (${local ? 'local file' : 'downloaded on first use'})` : `${spec}: no such file`, fix: 'point llama-cpp: at a GGUF file, or at an hf: URI (plaited-agent models pull)' };
  }
  // As the model's calls: a base URL's query joins the request, its user and password go as basic auth (never shown).
  const { base: plainBase, query, authorization } = splitBaseURL(config.agent.baseURL ?? provider.baseURL ?? NATIVE_BASE[provider.kind] ?? '');
  const base = plainBase.replace(/\/+$/, '');
  if (base === '') return { name, ok: false, detail: `${spec} has no endpoint`, fix: 'set agent.baseURL or pass --base-url' };
  const key = providerApiKey(provider, config.agent.apiKey, env);
  const keyVar = provider.keyEnv ?? 'PLAITED_API_KEY';
  if (provider.needsKey && !key && config.agent.baseURL === undefined) return { name, ok: false, detail: `${spec}: no API key`, fix: `set ${keyVar} (or agent.apiKey)` };
  const listing = listingRequest(provider.kind, base, modelId, key);
  const url = query ? withQuery(listing.url, query) : listing.url;
  const headers = { ...listing.headers, ...(authorization ? { authorization } : {}), ...config.agent.headers };
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    return { name, ok: false, detail: `${spec}: cannot reach ${base} (${reason(error)})`, fix: 'start the server, or check agent.baseURL / --base-url and the network' };
  }
  if (response.status === 401 || response.status === 403) return { name, ok: false, detail: `${spec}: ${base} refused the key (HTTP ${response.status})`, fix: `check ${keyVar} (or agent.apiKey)` };
  if (response.status === 404 && provider.kind !== 'openai-compatible' && provider.kind !== 'openai') {
    return { name, ok: false, detail: `${spec}: ${base} has no model ${modelId}`, fix: 'pick a model the provider serves (its models page lists them)' };
  }
  if (!response.ok) return { name, ok: false, detail: `${spec}: ${listing.url} answered HTTP ${response.status}`, fix: 'check agent.baseURL / --base-url (it usually ends in /v1)' };
  if (provider.kind === 'openai-compatible' || provider.kind === 'openai') {
    const ids = ((await response.json().catch(() => ({}))) as { data?: Array<{ id?: string }> }).data?.map((entry) => entry.id) ?? [];
    if (ids.length > 0 && !ids.includes(modelId)) {
      return { name, ok: false, detail: `${spec}: ${base} does not serve ${modelId} (it lists ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''})`, fix: 'name one of the listed models (or pull it: ollama pull MODEL)' };
    }
  }
  return { name, ok: true, detail: `${spec} at ${base}: reachable, key accepted, model served` };
}

function listingRequest(kind: string, base: string, modelId: string, key: string | undefined): { url: string; headers: Record<string, string> } {
  if (kind === 'anthropic') return { url: `${base}/models/${encodeURIComponent(modelId)}`, headers: { 'x-api-key': key ?? '', 'anthropic-version': '2023-06-01' } };
  if (kind === 'google') return { url: `${base}/models/${encodeURIComponent(modelId)}`, headers: key ? { 'x-goog-api-key': key } : {} };
  return { url: `${base}/models`, headers: key ? { authorization: `Bearer ${key}` } : {} };
}

/** fetch's own message ("fetch failed") with its cause (ECONNREFUSED, ENOTFOUND, a timeout). */
function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${errorMessage(error)}: ${cause.code ?? cause.message}` : errorMessage(error);
}
