import type { McpResponseInfo } from './mcp-client-options.js';

type Log = (level: 'error' | 'warn' | 'info' | 'debug', message: string, fields?: Record<string, unknown>) => void;

/**
 * One MCP request for the operator's log, at debug: server, method (and the tool, prompt or
 * resource it names), duration and outcome. Arguments are left out: they may hold anything.
 */
export function logMcpCall(log: Log, info: McpResponseInfo): void {
  const params = (info.params ?? {}) as { name?: unknown; uri?: unknown };
  const target = typeof params.name === 'string' ? ` ${params.name}` : typeof params.uri === 'string' ? ` ${params.uri}` : '';
  const outcome = info.error ? `failed (${info.error.code}: ${info.error.message})` : 'ok';
  log('debug', `MCP call: "${info.serverId}" ${info.method}${target} ${outcome} in ${Math.round(info.durationMs)} ms`, {
    event: 'mcp-call',
    server: info.serverId,
    method: info.method,
    ...(target ? { target: target.trim() } : {}),
    durationMs: Math.round(info.durationMs),
    outcome: info.error ? 'error' : 'ok',
    ...(info.error ? { errorCode: info.error.code } : {}),
  });
}
