import type { Agent } from './agent/agent.js';
import type { AgentExtension } from './agent/agent-extension.js';
import { createAgent } from './agent/create-agent.js';
import type { PlaitedConfig } from './config/schema.js';
import type { Log } from './cli/stderr-log.js';

/**
 * The agent with the project's default extensions, wired lazily: nothing heavy
 * (MCP SDK, SQLite, node-llama-cpp) loads before the first session needs it.
 */
export function createDefaultAgent(options: { config: PlaitedConfig; log?: Log; extensions?: AgentExtension[] }): Agent {
  return createAgent({ config: options.config, extensions: options.extensions ?? [] });
}
