import type { SessionInfo } from '../agent/agent.js';
import type { McpServerConfig, PlaitedConfig } from '../config/schema.js';
import type { AgentOutput } from '../contracts/agent-output.js';
import { errorMessage } from '../errors/error-message.js';
import { McpClientError } from './mcp-client-error.js';
import type { McpRegistry } from './mcp-registry.js';
import { shadowingNotices } from './shadowing-notices.js';

type Emit = (event: AgentOutput) => void;

export interface SessionServers {
  /** Connects the servers a session starts with (waits up to the start wait; slower ones go on connecting). */
  start(session: SessionInfo, emit: Emit): Promise<void>;
  /** The session's client named other servers while it is live: the ones gone or changed close, the new ones connect. */
  change(session: SessionInfo, emit: Emit): Promise<void>;
  /** The session closed (the registry closes its servers). */
  forget(sessionId: string): void;
}

/**
 * The MCP servers a session's client gave it (ACP `mcpServers`), in the registry under the
 * session's scope: what each live session connected with is kept, so that a later list (a
 * `session/load` of a session still open here) replaces exactly what differs. A failure to
 * connect is a warning notice, never a failed session.
 */
export function sessionServers(registry: McpRegistry, config: PlaitedConfig, startWaitMs: number): SessionServers {
  const connected = new Map<string, McpServerConfig[]>();

  const connect = async (session: SessionInfo, servers: readonly McpServerConfig[], emit: Emit): Promise<void> => {
    for (const message of shadowingNotices(config, servers)) emit({ type: 'notice', sessionId: session.sessionId, level: 'info', message });
    const connecting = Promise.all(
      servers.map(async (server) => {
        // A loaded session may start twice in one process: its servers are still connected.
        if (registry.servers.get(server.id, { sessionId: session.sessionId })?.sessionId === session.sessionId) return;
        try {
          await registry.servers.add(server, { sessionId: session.sessionId, cwd: session.cwd, roots: [session.cwd, ...(session.options?.additionalDirectories ?? [])] });
        } catch (error) {
          // The session closed meanwhile: no one to tell.
          if (McpClientError.isInstance(error) && error.code === 'session_closed') return;
          emit({ type: 'notice', sessionId: session.sessionId, level: 'warning', message: `MCP server "${server.id}" is unavailable: ${errorMessage(error)}` });
        }
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const wait = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, startWaitMs);
      timer.unref();
    });
    await Promise.race([connecting, wait]);
    clearTimeout(timer);
  };

  return {
    async start(session, emit) {
      connected.set(session.sessionId, [...session.mcpServers]);
      await connect(session, session.mcpServers, emit);
    },

    async change(session, emit) {
      const before = connected.get(session.sessionId) ?? [];
      const now = session.mcpServers;
      const same = (a: McpServerConfig, b: McpServerConfig | undefined) => b !== undefined && JSON.stringify(a) === JSON.stringify(b);
      const gone = before.filter((old) => !same(old, now.find((server) => server.id === old.id)));
      const added = now.filter((server) => !same(server, before.find((old) => old.id === server.id)));
      connected.set(session.sessionId, [...now]);
      await Promise.all(gone.map((server) => registry.servers.remove(server.id, { sessionId: session.sessionId })));
      await connect(session, added, emit);
    },

    forget(sessionId) {
      connected.delete(sessionId);
    },
  };
}
