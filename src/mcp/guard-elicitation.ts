import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import type { McpSessionCallContext } from './mcp-registry-types.js';
import { perMinuteLimit } from './per-minute-limit.js';

/** How many questions a server may put to the user per minute when its config names no number. */
export const DEFAULT_ELICITATION_PER_MINUTE = 5;

type Elicit = (request: ElicitRequestParams, context: McpSessionCallContext) => Promise<ElicitResult>;

/**
 * A server's `elicitation/create` interrupts the user, so, as sampling, it is rate limited per
 * server and session (`mcp.servers[].elicitationPerMinute`, default 5, over the last minute): past
 * it, the question is declined unasked, and the session is told which server and the setting.
 * Before, a server could put question after question to the user, as fast as they answered.
 */
export function guardElicitation(elicit: Elicit, options: { now?: () => number } = {}): Elicit {
  const take = perMinuteLimit(options.now);
  return async (request, context) => {
    const key = `${context.sessionId ?? ''}\u0000${context.serverId}`;
    const limit = context.server?.elicitationPerMinute ?? DEFAULT_ELICITATION_PER_MINUTE;
    if (take(key, limit)) {
      if (context.sessionId !== undefined) {
        context.emit?.({
          type: 'notice',
          sessionId: context.sessionId,
          level: 'warning',
          message: `MCP server "${context.serverId}" asked more than ${limit} questions in a minute; this one was declined unasked (raise elicitationPerMinute in its config to allow more)`,
        });
      }
      return { action: 'decline' };
    }
    return elicit(request, context);
  };
}
