import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, defaultServerCallContextBuilder, validateVersion, type DefaultRequestHandler } from '@a2a-js/sdk/server';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { headerRecord } from './header-record.js';
import { A2aPrincipal } from './a2a-principal.js';
import { A2A_RPC_PARAMS } from './a2a-request-schemas.js';
import { checkA2aParams } from './check-a2a-params.js';
import { clipForLog } from './clip-for-log.js';
import { explainRpcError } from './explain-rpc-error.js';
import { readJsonBody } from './read-json-body.js';
import { rpcJson, rpcResultResponse } from './rpc-result-response.js';

const V1_METHODS = 'SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask and SubscribeToTask';

export interface A2aRpcHandlers {
  handler: DefaultRequestHandler;
  v1: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

/**
 * One authenticated A2A JSON-RPC call: POST only, a JSON media type, a body within the limits,
 * then the 1.0 or the 0.3 transport handler by the `A2A-Version` header. Every failure is a
 * JSON-RPC error with the request's id when it is known.
 */
export async function answerA2aRpc(request: Request, principal: string, options: { rpc: A2aRpcHandlers; limits: JsonRpcLimits; log?: (message: string) => void }): Promise<Response> {
  if (request.method !== 'POST') return new Response('A2A JSON-RPC requests are POSTed', { status: 405, headers: { 'content-type': 'text/plain', allow: 'POST' } });
  const mediaType = (request.headers.get('content-type') ?? 'application/json').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && mediaType !== 'application/a2a+json') return rpcError(-32600, `Unsupported Content-Type ${mediaType}: send application/json`, null, 415);
  const body = await readJsonBody(request, options.limits);
  if (!body.ok) {
    options.log?.(`A2A: refused a request: ${body.message}`);
    // An oversized body is not read to its end: the connection closes after the error.
    return rpcError(body.code, body.message, body.id, body.status, body.status === 413 ? { connection: 'close' } : {});
  }
  const header = (name: string) => request.headers.get(name) || undefined;
  const requestedVersion = header(A2A_VERSION_HEADER);
  const legacy = (requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
  const mapSdkError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
  const mapError = (error: unknown) => explainRpcError(mapSdkError(error), error);
  const id = rpcId(body.value);
  try {
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(legacy ? (header(LEGACY_HTTP_EXTENSION_HEADER) ?? header(HTTP_EXTENSION_HEADER)) : header(HTTP_EXTENSION_HEADER)),
      user: new A2aPrincipal(principal),
      headers: headerRecord(request.headers),
      requestedVersion,
    });
    validateVersion(context.requestedVersion, await options.rpc.handler.getAgentCard(), 'JSONRPC');
    checkRpcParams(body.value, legacy);
    const result = await (legacy ? options.rpc.legacy : options.rpc.v1).handle(body.value as Record<string, unknown>, context);
    return await rpcResultResponse(withMethodNamed(result, body.value), { id, mapError, log: options.log });
  } catch (error) {
    const mapped = mapError(error);
    if (mapped.code === -32603) options.log?.(`A2A request ${String(id)} failed: ${(error as Error).message}`);
    return rpcError(mapped.code, mapped.message, id);
  }
}

/** Checks the params of a method we serve (0.3 names for a 0.3 request, 1.0 names for 1.0); the SDK answers the rest. */
function checkRpcParams(body: unknown, legacy: boolean): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string' || method.includes('/') !== legacy || !Object.hasOwn(A2A_RPC_PARAMS, method)) return;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return; // the SDK's own "Invalid method parameters."
  checkA2aParams(A2A_RPC_PARAMS[method]!, params, method);
}

/** The 1.0 handler's bare "Invalid method." for an unknown method, naming it and the methods served. */
function withMethodNamed<R>(result: R, body: unknown): R {
  const error = (result as { error?: { message?: unknown } } | null)?.error;
  if (error?.message !== 'Invalid method.') return result;
  const method = (body as { method?: unknown }).method;
  const named = typeof method === 'string' ? clipForLog(method) : JSON.stringify(method ?? null);
  const message = `Method not found: ${named}. A2A 1.0 (A2A-Version: 1.0) serves ${V1_METHODS}; without that header the 0.3 names (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe) are served.`;
  return { ...result, error: { ...error, message } };
}

function rpcId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function rpcError(code: number, message: string, id: string | number | null, status = 200, headers: Record<string, string> = {}): Response {
  return rpcJson({ jsonrpc: '2.0', id, error: { code, message } }, status, headers);
}
