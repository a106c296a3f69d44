import * as acp from '@agentclientprotocol/sdk';
import type { PlaitedConfig } from '../../config/schema.js';

/** The one auth method: an API key in the agent's environment, for a remote OpenAI-compatible endpoint. */
export const API_KEY_METHOD_ID = 'plaited-api-key';
export const API_KEY_ENV = 'PLAITED_API_KEY';

/**
 * Whether the configured model needs credentials the agent does not have: an
 * `openai-compatible` model on a non-loopback endpoint with neither `agent.apiKey` nor
 * `PLAITED_API_KEY`. Local servers (Ollama, llama.cpp server) and in-process GGUF models never do.
 */
export function missingCredentials(config: PlaitedConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  return needsApiKey(config) && !config.agent.apiKey && !env[API_KEY_ENV];
}

function needsApiKey(config: PlaitedConfig): boolean {
  const model = config.agent.model;
  if (typeof model !== 'string' || !model.startsWith('openai-compatible:') || !config.agent.baseURL) return false;
  let host: string;
  try {
    host = new URL(config.agent.baseURL).hostname;
  } catch {
    return false;
  }
  return !isLoopback(host);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Advertised only when the model can need a key: a client shows no login for a local model. */
export function authMethods(config: PlaitedConfig): acp.AuthMethod[] {
  if (!needsApiKey(config)) return [];
  return [
    {
      id: API_KEY_METHOD_ID,
      name: `API key (${API_KEY_ENV})`,
      description: `Set ${API_KEY_ENV} in the agent's environment (or agent.apiKey in .plaited/config.ts) to the key of ${config.agent.baseURL}, then restart the agent.`,
      _meta: { envVar: API_KEY_ENV },
    },
  ];
}

/** `authenticate`: succeeds when the key is there; otherwise auth-required saying where to put it. */
export function authenticate(config: PlaitedConfig, methodId: string): void {
  const methods = authMethods(config);
  if (!methods.some((method) => 'id' in method && method.id === methodId)) {
    throw acp.RequestError.invalidParams({ methodId }, `unknown auth method; available: ${methods.map((m) => ('id' in m ? m.id : '')).join(', ') || 'none'}`);
  }
  if (missingCredentials(config)) throw authRequired(config);
}

export function authRequired(config: PlaitedConfig): acp.RequestError {
  return acp.RequestError.authRequired(
    { authMethods: [API_KEY_METHOD_ID], envVar: API_KEY_ENV },
    `${String(config.agent.model)} at ${config.agent.baseURL} needs an API key: set ${API_KEY_ENV} (or agent.apiKey) and restart the agent`,
  );
}
