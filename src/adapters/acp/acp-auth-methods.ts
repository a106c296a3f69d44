import * as acp from '@agentclientprotocol/sdk';
import type { AcpAgentSettings } from './acp-agent-settings.js';

type ModelSettings = Pick<AcpAgentSettings, 'model'>;

/** The one auth method: an API key in the agent's environment, for a remote OpenAI-compatible endpoint. */
export const API_KEY_METHOD_ID = 'plaited-api-key';
export const API_KEY_ENV = 'PLAITED_API_KEY';

/**
 * Whether the configured model needs credentials the agent does not have: an
 * `openai-compatible` model on a non-loopback endpoint with neither `agent.apiKey` nor
 * `PLAITED_API_KEY`. Local servers (Ollama, llama.cpp server) and in-process GGUF models never do.
 */
export function missingCredentials(settings: ModelSettings, env: NodeJS.ProcessEnv = process.env): boolean {
  return needsApiKey(settings) && !settings.model.hasApiKey && !env[API_KEY_ENV];
}

function needsApiKey(settings: ModelSettings): boolean {
  const { spec, baseURL } = settings.model;
  if (!spec?.startsWith('openai-compatible:') || !baseURL) return false;
  let host: string;
  try {
    host = new URL(baseURL).hostname;
  } catch {
    return false;
  }
  return !isLoopback(host);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Advertised only when the model can need a key: a client shows no login for a local model. */
export function authMethods(settings: ModelSettings): acp.AuthMethod[] {
  if (!needsApiKey(settings)) return [];
  return [
    {
      id: API_KEY_METHOD_ID,
      name: `API key (${API_KEY_ENV})`,
      description: `Set ${API_KEY_ENV} in the agent's environment (or agent.apiKey in .plaited/config.ts) to the key of ${settings.model.baseURL}, then restart the agent.`,
      _meta: { envVar: API_KEY_ENV },
    },
  ];
}

/** `authenticate`: succeeds when the key is there; otherwise auth-required saying where to put it. */
export function authenticate(settings: ModelSettings, methodId: string): void {
  const methods = authMethods(settings);
  if (!methods.some((method) => 'id' in method && method.id === methodId)) {
    throw acp.RequestError.invalidParams({ methodId }, `unknown auth method; available: ${methods.map((m) => ('id' in m ? m.id : '')).join(', ') || 'none'}`);
  }
  if (missingCredentials(settings)) throw authRequired(settings);
}

export function authRequired(settings: ModelSettings): acp.RequestError {
  return acp.RequestError.authRequired(
    { authMethods: [API_KEY_METHOD_ID], envVar: API_KEY_ENV },
    `${String(settings.model.spec)} at ${settings.model.baseURL} needs an API key: set ${API_KEY_ENV} (or agent.apiKey) and restart the agent`,
  );
}
