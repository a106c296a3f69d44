import type { AgentOutput } from '../contracts/agent-output.js';
import type { McpRegistry } from './mcp-registry.js';
import type { McpServerInfo } from './mcp-registry-types.js';

export interface McpFailureNotices {
  /** A session started: it hears of every config server that is down now, then of later failures. */
  sessionStarted(sessionId: string, emit: (event: AgentOutput) => void): void;
  sessionClosed(sessionId: string): void;
  stop(): void;
}

/**
 * Tells each session's client, once, when a configured MCP server cannot start or dies: a
 * warning notice naming the server and the error. Once per failure: a server that connects
 * again and later fails again is told again. Session servers are told by the session start.
 */
export function mcpFailureNotices(registry: McpRegistry): McpFailureNotices {
  const sessions = new Map<string, (event: AgentOutput) => void>();
  /** Per config server: the sessions already told of its current failure. */
  const told = new Map<string, Set<string>>();

  const tell = (sessionId: string, server: Pick<McpServerInfo, 'id' | 'status' | 'error'>) => {
    const emit = sessions.get(sessionId);
    if (!emit || !server.error) return;
    let heard = told.get(server.id);
    if (!heard) told.set(server.id, (heard = new Set()));
    if (heard.has(sessionId)) return;
    heard.add(sessionId);
    const next =
      server.status === 'failed'
        ? 'It is not retried any more: fix it and restart the agent.'
        : 'Retrying in the background; its tools join once it connects.';
    emit({ type: 'notice', sessionId, level: 'warning', message: `MCP server "${server.id}" is unavailable: ${server.error.message}. ${next} Type /mcp to see the servers' state.` });
  };

  const unsubscribe = registry.subscribe((event) => {
    if (event.type !== 'server-status' || event.sessionId !== undefined) return;
    if (event.status === 'connected') told.delete(event.serverId);
    if (!event.error || (event.status !== 'reconnecting' && event.status !== 'failed')) return;
    for (const sessionId of sessions.keys()) tell(sessionId, { id: event.serverId, status: event.status, error: event.error });
  });

  return {
    sessionStarted(sessionId, emit) {
      sessions.set(sessionId, emit);
      for (const server of registry.servers.list({})) {
        if (server.sessionId === undefined && (server.status === 'reconnecting' || server.status === 'failed')) tell(sessionId, server);
      }
    },
    sessionClosed(sessionId) {
      sessions.delete(sessionId);
      for (const heard of told.values()) heard.delete(sessionId);
    },
    stop: unsubscribe,
  };
}
