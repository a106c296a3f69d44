import type { AgentCapabilities } from './agent.js';
import type { AgentExtension } from './agent-extension.js';

/**
 * What the agent offers a client. The core itself takes images and embedded context and
 * loads sessions; MCP transports come from the extensions present (an MCP extension
 * declares them, eagerly or through `CreateAgentOptions.capabilities` for late ones).
 */
export function agentCapabilities(extensions: readonly AgentExtension[], late: Partial<Pick<AgentCapabilities, 'mcp'>> = {}): AgentCapabilities {
  const mcp = { http: late.mcp?.http ?? false, sse: late.mcp?.sse ?? false };
  for (const extension of extensions) {
    if (extension.capabilities?.mcp?.http) mcp.http = true;
    if (extension.capabilities?.mcp?.sse) mcp.sse = true;
  }
  return {
    prompt: { image: true, audio: false, embeddedContext: true },
    loadSession: true,
    mcp,
    modes: ['default', 'accept-edits', 'plan'],
  };
}
