import type { PlaitedConfig } from '../config/schema.js';
import type { ConfiguredModel } from '../model/list-endpoint-models.js';

/** The models a config names, with their connections: `agent.model` (the default) first, then `agent.models`. */
export function configuredModels(config: PlaitedConfig | undefined): ConfiguredModel[] {
  if (!config) return [];
  const { agent } = config;
  const first: ConfiguredModel[] =
    typeof agent.model === 'string' ? [{ spec: agent.model, baseURL: agent.baseURL, apiKey: agent.apiKey, headers: agent.headers, default: true }] : [];
  return [...first, ...agent.models.map((entry) => ({ spec: entry.model, baseURL: entry.baseURL, apiKey: entry.apiKey, headers: entry.headers }))];
}
