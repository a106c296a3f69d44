import type * as acp from '@agentclientprotocol/sdk';
import type { SessionInfo } from '../../agent/agent.js';
import type { AgentOutput } from '../../contracts/agent-output.js';
import type { AcpAgentSettings } from './acp-agent-settings.js';

/** `session_info_update`: the title (from the first prompt) and the last activity. */
export function sessionInfoUpdate(info: SessionInfo): acp.SessionUpdate {
  return { sessionUpdate: 'session_info_update', title: info.title, updatedAt: info.updatedAt };
}

/**
 * `usage_update`: tokens in context after the turn and the window they count against (the
 * configured window, else the local context size, else the 128k the compaction assumes).
 * No cost: the providers in use report tokens, not money.
 */
export function usageUpdate(settings: Pick<AcpAgentSettings, 'contextWindow'>, event: Extract<AgentOutput, { type: 'usage' }>): acp.SessionUpdate {
  return {
    sessionUpdate: 'usage_update',
    used: event.contextTokens ?? event.totalTokens,
    size: settings.contextWindow,
    // ACP v1 has no field for prompt-cache tokens: they ride in _meta when the provider reports them.
    // Only when the cache did something: a provider reporting zeros adds nothing a client can use.
    ...((event.cacheReadTokens ?? 0) + (event.cacheWriteTokens ?? 0) > 0
      ? { _meta: { cacheReadTokens: event.cacheReadTokens ?? 0, cacheWriteTokens: event.cacheWriteTokens ?? 0 } }
      : {}),
  };
}
