import * as acp from '@agentclientprotocol/sdk';
import { modelKeyMissing, modelKeyNeed } from '../../model/model-credentials.js';
import type { AcpAgentSettings } from './acp-agent-settings.js';

type ModelSettings = Pick<AcpAgentSettings, 'model'>;

/** The one auth method: an API key in the agent's environment, in the configured provider's variable. */
export const API_KEY_METHOD_ID = 'plaited-api-key';
export const API_KEY_ENV = 'PLAITED_API_KEY';

/**
 * Whether the configured model needs credentials the agent does not have (see model-credentials.ts):
 * a remote provider with neither `agent.apiKey` nor its key variable (nor `PLAITED_API_KEY`).
 */
export function missingCredentials(settings: ModelSettings, env: NodeJS.ProcessEnv = process.env): boolean {
  const need = keyNeed(settings);
  return need !== undefined && modelKeyMissing(need, settings.model.hasApiKey ? 'configured' : undefined, env);
}

function keyNeed(settings: ModelSettings) {
  return modelKeyNeed({ model: settings.model.spec, ...(settings.model.baseURL ? { baseURL: settings.model.baseURL } : {}) });
}

/** Advertised only when the model can need a key: a client shows no login for a local model. */
export function authMethods(settings: ModelSettings): acp.AuthMethod[] {
  const need = keyNeed(settings);
  if (!need) return [];
  return [
    {
      id: API_KEY_METHOD_ID,
      name: `API key (${need.envVar})`,
      description: `Set ${need.envVars.join(' or ')} in the agent's environment (or agent.apiKey in .plaited/config.ts) to the key of ${need.endpoint}, then restart the agent.`,
      _meta: { envVar: need.envVar },
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
  const need = keyNeed(settings) ?? { envVar: API_KEY_ENV, envVars: [API_KEY_ENV], endpoint: String(settings.model.baseURL) };
  return acp.RequestError.authRequired(
    { authMethods: [API_KEY_METHOD_ID], envVar: need.envVar },
    `${String(settings.model.spec)} at ${need.endpoint} needs an API key: set ${need.envVars.join(' or ')} (or agent.apiKey) and restart the agent`,
  );
}
