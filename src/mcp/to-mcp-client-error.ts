import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import { McpClientError, type McpClientErrorCode } from './mcp-client-error.js';
import { errorMessage } from '../errors/error-message.js';
import { commandLineTooLong } from './command-line-limits.js';

export interface ToMcpClientErrorOptions {
  serverId: string;
  /** The code when nothing more specific is known. */
  fallback: McpClientErrorCode;
  /** What was being done (`connect`, `tools/call`), for the message. */
  action: string;
  /** The caller's signal: an abort wins over whatever the SDK reported. */
  signal?: AbortSignal;
  /** The request's timeout, named in a timeout's message with the setting that changes it. */
  timeoutMs?: number;
}

/** Maps whatever the SDK, a transport or the OS threw onto one typed error with the server's id. */
export function toMcpClientError(cause: unknown, options: ToMcpClientErrorOptions): McpClientError {
  if (McpClientError.isInstance(cause)) return cause;
  const { serverId, action } = options;
  const detail = errorMessage(cause);
  const make = (code: McpClientErrorCode, message: string, rpcCode?: number) =>
    new McpClientError({ code, serverId, message, cause, rpcCode });
  if (options.signal?.aborted) return make('aborted', `server "${serverId}": ${action} was cancelled`);
  if (UnauthorizedError.isInstance(cause)) return make('auth_failed', `server "${serverId}" rejected the credentials (${detail})`);
  if (SdkHttpError.isInstance(cause) && (cause.status === 401 || cause.status === 403)) {
    return make('auth_failed', `server "${serverId}" rejected the credentials: HTTP ${cause.status} (${detail})`);
  }
  // At connect only: later, a 404 is the server's "unknown session" (it restarted).
  const misplaced = action === 'connect' ? notAnMcpEndpoint(cause) : undefined;
  if (misplaced) {
    // No retry fixes a URL that is not an MCP endpoint: said once, named, and not retried for long.
    const message = `server "${serverId}": its url ${misplaced}, not MCP; check mcp.servers[].url (streamable HTTP endpoints often end in /mcp, SSE ones in /sse)`;
    return new McpClientError({ code: options.fallback, serverId, message, cause, permanent: true });
  }
  if (SdkError.isInstance(cause)) {
    switch (cause.code) {
      case SdkErrorCode.RequestTimeout:
        return make('timeout', options.timeoutMs === undefined ? `server "${serverId}" did not answer ${action} in time (${detail})` : timeoutMessage(serverId, action, options.timeoutMs));
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return make('connection_closed', `server "${serverId}" closed the connection during ${action} (${detail})`);
      case SdkErrorCode.ClientHttpAuthentication:
      case SdkErrorCode.ClientHttpForbidden:
        return make('auth_failed', `server "${serverId}" rejected the credentials (${detail})`);
      case SdkErrorCode.InvalidResult:
        return make('invalid_result', `server "${serverId}" sent an invalid answer to ${action} (${detail})`);
      case SdkErrorCode.ListPaginationExceeded:
        return make('pagination_exceeded', `server "${serverId}": ${action} never stopped paginating`);
      default:
        return make(options.fallback, `server "${serverId}": ${action} failed (${detail})`);
    }
  }
  if (ProtocolError.isInstance(cause) && /^Structured content does not match|has an output schema but did not return structured content/.test(detail)) {
    // Raised by the client's check of the result, not sent by the server: the arguments were not at fault.
    return make('invalid_result', `server "${serverId}" answered ${action} with a result its tool's own outputSchema refuses (${detail}); the server is at fault, not the arguments`);
  }
  if (ProtocolError.isInstance(cause)) {
    return make('server_error', `server "${serverId}" answered ${action} with error ${cause.code}: ${detail}`, cause.code);
  }
  if (/401|unauthori[sz]ed/i.test(detail)) return make('auth_failed', `server "${serverId}" rejected the credentials (${detail})`);
  // fetch() failures (ECONNREFUSED, reset sockets) mean the server is gone, not that it answered badly.
  if (cause instanceof TypeError && /fetch failed|network|ECONN|socket/i.test(`${detail} ${String((cause as Error & { cause?: unknown }).cause ?? '')}`)) {
    return make('connection_closed', `server "${serverId}" is unreachable during ${action} (${detail})`);
  }
  // No retry makes a command line shorter: named, with the limit and the fix, and not retried.
  if (/\bE2BIG\b/.test(detail)) return new McpClientError({ code: 'connect_failed', serverId, message: commandLineTooLong(serverId), cause, permanent: true });
  if (/ECONNREFUSED|ECONNRESET|EPIPE|ENOENT|spawn/i.test(detail)) {
    return make(options.fallback === 'connect_failed' ? 'connect_failed' : 'connection_closed', `server "${serverId}": ${action} failed (${detail})`);
  }
  return make(options.fallback, `server "${serverId}": ${action} failed (${detail})`);
}

/** A request's timeout, with the setting that changes it. */
export function timeoutMessage(serverId: string, action: string, timeoutMs: number): string {
  if (action === 'connect') {
    return (
      `server "${serverId}" did not answer initialize in time: not within ${timeoutMs} ms (the larger of its timeoutMs and 15000 ms). ` +
      'A server that logs to stdout instead of speaking MCP, waits on a prompt or a login, or is still installing (npx -y) never answers; ' +
      'run its command by hand to see'
    );
  }
  return (
    `server "${serverId}" did not answer ${action} in time: not within ${timeoutMs} ms (the server's timeoutMs: mcp.servers[].timeoutMs ` +
    'in the config; a server that reports progress gets that long again after each report)'
  );
}

/** What an HTTP answer that is no MCP endpoint was (a 404, a web page), or undefined. */
function notAnMcpEndpoint(cause: unknown): string | undefined {
  if (SdkHttpError.isInstance(cause) && (cause.status === 404 || cause.status === 405)) return `answered HTTP ${cause.status}`;
  if (SdkError.isInstance(cause) && cause.code === SdkErrorCode.ClientHttpUnexpectedContent && /text\/html/i.test(errorMessage(cause))) {
    return 'answered with a web page (text/html)';
  }
  return undefined;
}
