import { A2A_CONTENT_TYPE, StreamResponse } from '@a2a-js/sdk';
import { A2AError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { PlaitedError } from '../../errors/plaited-error.js';
import { internalErrorMessage } from '../internal-error-message.js';
import { explainA2aRefusal } from './explain-a2a-refusal.js';
import { sseStreamResponse } from './sse-stream-response.js';

/** What a REST route answers: one JSON body, or a stream of events sent as SSE. */
export type RestReply = { kind: 'json'; status: number; body: unknown } | { kind: 'stream'; events: AsyncGenerator<StreamResponse, void, undefined> };

/** An HTTP-level refusal (unknown path, wrong method, no token) in the REST error shape. */
export class RestHttpError extends PlaitedError<'rest_http_refused'> {
  constructor(
    readonly status: number,
    readonly statusName: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super('rest_http_refused', message);
    this.name = 'RestHttpError';
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is RestHttpError {
    return PlaitedError.isInstance(error) && error.name === 'RestHttpError';
  }
}

/**
 * An error answered as the SDK's REST binding does: the HTTP status of the A2A error and a
 * google.rpc.Status-style body (`{ error: { code, status, message, details } }`, details
 * carrying the A2A ErrorInfo), which the SDK's REST client turns back into the typed error.
 */
export function restErrorResponse(error: unknown): Response {
  if (error instanceof RestHttpError) {
    const body = { error: { code: error.status, status: error.statusName, message: error.message, details: [] } };
    return new Response(JSON.stringify(body), { status: error.status, headers: { 'content-type': A2A_CONTENT_TYPE, ...error.headers } });
  }
  const status = restStatusFor(error);
  return new Response(JSON.stringify(restErrorBody(error)), { status, headers: { 'content-type': A2A_CONTENT_TYPE } });
}

/** The SDK's REST error body; an unexpected exception (not an A2A error) says its cause and what to do, credentials redacted. */
function restErrorBody(error: unknown): ReturnType<typeof toRestErrorBody> {
  const body = toRestErrorBody(error, restStatusFor(error));
  if (error instanceof A2AError) return { error: { ...body.error, message: explainA2aRefusal(body.error.message) } };
  return { error: { ...body.error, message: internalErrorMessage(error) } };
}

/**
 * A route's reply as the HTTP answer. A stream that fails before its first event is answered
 * as a plain REST error; after that the failure is an SSE `error` event. A client that goes away
 * stops the stream, never the task (it can resubscribe).
 */
export async function restResultResponse(reply: RestReply, log?: (message: string) => void): Promise<Response> {
  if (reply.kind === 'json') return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { 'content-type': A2A_CONTENT_TYPE } });
  return sseStreamResponse(reply.events, {
    toEvent: (value) => StreamResponse.toJSON(value),
    onEarlyError: (error) => restErrorResponse(error),
    errorEvent: (error) => restErrorBody(error),
    log: (error) => log?.(`A2A REST stream failed: ${(error as Error).message}`),
  });
}
