import * as acp from '@agentclientprotocol/sdk';
import type { PlaitedConfig } from '../../config/schema.js';
import { modelKeyMissing, modelKeyNeed } from '../../model/model-credentials.js';

/** The one auth method: an API key in the agent's environment, in the configured provider's variable. */
export const API_KEY_METHOD_ID = 'plaited-api-key';
export const API_KEY_ENV = 'PLAITED_API_KEY';

/**
 * Whether the configured model needs credentials the agent does not have (see model-credentials.ts):
 * a remote provider with neither `agent.apiKey` nor its key variable (nor `PLAITED_API_KEY`).
 */
export function missingCredentials(config: PlaitedConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  const need = modelKeyNeed(config.agent);
  return need !== undefined && modelKeyMissing(need, config.agent.apiKey, env);
}

/** Advertised only when the model can need a key: a client shows no login for a local model. */
export function authMethods(config: PlaitedConfig): acp.AuthMethod[] {
  const need = modelKeyNeed(config.agent);
  if (!need) return [];
  return [
    {
      id: API_KEY_METHOD_ID,
      name: `API key (${need.envVar})`,
      description: `Set ${need.envVar} in the agent's environment (or agent.apiKey in .plaited/config.ts) to the key of ${need.endpoint}, then restart the agent.`,
      _meta: { envVar: need.envVar },
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
  const need = modelKeyNeed(config.agent) ?? { envVar: API_KEY_ENV, endpoint: String(config.agent.baseURL) };
  return acp.RequestError.authRequired(
    { authMethods: [API_KEY_METHOD_ID], envVar: need.envVar },
    `${String(config.agent.model)} at ${need.endpoint} needs an API key: set ${need.envVar} (or agent.apiKey) and restart the agent`,
  );
}
