import type { JSONRPCMessage } from '@modelcontextprotocol/server';

type ZodIssue = { path?: unknown; message?: unknown };

/**
 * The MCP SDK validates a request's params with zod and answers a failure as -32603 with
 * the zod issues as the message (`logging/setLevel {"level":"loud"}`, `resources/read {"uri":5}`).
 * Bad params are -32602: this rewrites exactly those responses (an issue list whose paths
 * start at `params`) and passes every other message through untouched.
 */
export function invalidParamsFromSchema(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code?: unknown; message?: unknown } }).error;
  if (!error || error.code !== -32603 || typeof error.message !== 'string' || !error.message.startsWith('[')) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message);
  } catch {
    return message;
  }
  if (!Array.isArray(issues) || issues.length === 0) return message;
  const described: string[] = [];
  for (const issue of issues as ZodIssue[]) {
    if (!Array.isArray(issue.path) || issue.path[0] !== 'params' || typeof issue.message !== 'string') return message;
    described.push(`${issue.path.map(String).join('.')}: ${issue.message}`);
  }
  return { ...message, error: { code: -32602, message: `Invalid params: ${described.join('; ')}` } } as JSONRPCMessage;
}
