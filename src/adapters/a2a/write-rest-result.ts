import type { ServerResponse } from 'node:http';
import { A2A_CONTENT_TYPE, StreamResponse } from '@a2a-js/sdk';
import { restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { PlaitedError } from '../../errors/plaited-error.js';
import { writeSseStream } from './write-sse-stream.js';

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
 * Writes an error as the SDK's REST binding does: the HTTP status of the A2A error and a
 * google.rpc.Status-style body (`{ error: { code, status, message, details } }`, details
 * carrying the A2A ErrorInfo), which the SDK's REST client turns back into the typed error.
 */
export function writeRestError(res: ServerResponse, error: unknown, headers: Record<string, string> = {}): void {
  if (error instanceof RestHttpError) {
    res.writeHead(error.status, { 'content-type': A2A_CONTENT_TYPE, ...error.headers, ...headers });
    res.end(JSON.stringify({ error: { code: error.status, status: error.statusName, message: error.message, details: [] } }));
    return;
  }
  const status = restStatusFor(error);
  res.writeHead(status, { 'content-type': A2A_CONTENT_TYPE, ...headers });
  res.end(JSON.stringify(toRestErrorBody(error, status)));
}

/**
 * Writes a route's reply. A stream that fails before its first event is answered as a plain
 * REST error; after that the failure is an SSE `error` event. A client that goes away stops
 * the stream, never the task (it can resubscribe).
 */
export async function writeRestResult(res: ServerResponse, reply: RestReply, log?: (message: string) => void): Promise<void> {
  if (reply.kind === 'json') {
    res.writeHead(reply.status, { 'content-type': A2A_CONTENT_TYPE });
    res.end(JSON.stringify(reply.body));
    return;
  }
  await writeSseStream(res, reply.events, {
    toEvent: (value) => StreamResponse.toJSON(value),
    onEarlyError: (error) => writeRestError(res, error),
    errorEvent: (error) => toRestErrorBody(error, restStatusFor(error)),
    log: (error) => log?.(`A2A REST stream failed: ${(error as Error).message}`),
  });
}
