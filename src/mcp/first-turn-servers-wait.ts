import type { TurnContext } from '../agent/agent-extension.js';
import { untilAborted } from '../agent/until-aborted.js';
import type { McpRegistry } from './mcp-registry.js';

export interface FirstTurnServersWait {
  /** Waits (once per session, up to `startupWaitMs`) for the session's servers, with a notice naming the slow ones. */
  wait(context: TurnContext): Promise<void>;
  forget(sessionId: string): void;
}

/**
 * The servers of a session (the config's and its own, which may outlast the session start's
 * short wait: `npx -y` installing one), waited for once per session by its first turn (or the
 * first turns running together). A cancelled wait is taken up again by the next turn.
 */
export function firstTurnServersWait(registry: McpRegistry, startupWaitMs: number): FirstTurnServersWait {
  const starting = new Map<string, Promise<string[]>>();
  const ready = new Set<string>();
  return {
    async wait(context) {
      const { sessionId } = context;
      if (ready.has(sessionId)) return;
      let settled = starting.get(sessionId);
      if (!settled) starting.set(sessionId, (settled = registry.servers.settled(startupWaitMs, { sessionId })));
      const slow = await untilAborted(settled, context.signal);
      starting.delete(sessionId);
      if (slow === undefined) return; // cancelled: the next turn waits for what is left
      ready.add(sessionId);
      if (slow.length === 0) return;
      const one = slow.length === 1;
      context.emit({
        type: 'notice',
        sessionId,
        level: 'warning',
        message: `MCP ${one ? 'server' : 'servers'} ${slow.map((id) => `"${id}"`).join(', ')} still connecting after ${startupWaitMs} ms (mcp.startupWaitMs); this turn goes on without ${one ? 'its' : 'their'} tools, which join once ready.`,
      });
    },
    forget(sessionId) {
      ready.delete(sessionId);
      starting.delete(sessionId);
    },
  };
}
