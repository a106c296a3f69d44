import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { createHttpCoreApp, type HttpCoreAppOptions, type HttpCoreBindings } from './create-http-core-app.js';
import { serverOrigin } from './host-origin-check.js';
import { checkReplicaId, defaultReplicaId } from './replica-id.js';
import { writeUpgradeRefusal } from './write-upgrade-refusal.js';

export interface HttpCoreOptions extends Omit<HttpCoreAppOptions, 'replica'> {
  /** This replica's route name (default: host name and port, see `defaultReplicaId`). */
  replicaId?: string;
  /** 0 picks a free port. */
  port: number;
  /** Accept on this inherited listening socket instead of binding `host:port` (a sandboxed child). */
  listenFd?: number;
  /** Told when the listener cannot bind, to turn into the face's own error. */
  listenError?: (error: Error) => Error;
}

export interface HttpCore {
  /** `http://host:port` (a wildcard bind is reached through 127.0.0.1). */
  origin: string;
  port: number;
  /** The route name every response names in `Plaited-Replica`. */
  replicaId: string;
  closed: Promise<void>;
  /** Stops accepting, lets the answers under way be written (5 s at most), then drops every open connection. */
  close(): Promise<void>;
}

/**
 * Listens for the HTTP core: Node's server at the edge, `@hono/node-server` turning each
 * request into a web `Request` and streaming the `Response` back (with backpressure: a slow
 * reader holds the stream, a reader that goes away cancels it). A WebSocket upgrade goes
 * through the same app (so the same guard and auth) as a body-less request; the face that
 * takes it accepts the socket, any refusal is written on the socket and the socket closed.
 */
export async function serveHttpCore(options: HttpCoreOptions): Promise<HttpCore> {
  let replicaId = options.replicaId === undefined ? undefined : checkReplicaId(options.replicaId);
  const app = createHttpCoreApp({ ...options, replica: () => replicaId });
  // Bodies are re-wrapped so that a failing stream reaches the adaptor as a plain error: on a
  // premature-close error it writes to stdout, which belongs to a stdio protocol in the same process.
  // Only the HTTP/1.1 server is created, so the bindings are always Node's request and response.
  const fetch = async (request: Request, env: object): Promise<Response> => plainErrors(await app.fetch(request, env as HttpCoreBindings));
  const listener = getRequestListener(fetch, {
    overrideGlobalObjects: false,
    errorHandler: (error) => options.failed(error instanceof Error ? error : new Error(String(error))),
  });
  // Requests being answered: a close lets each finish its answer first (`answered`).
  const answering = new Set<ServerResponse>();
  const http: HttpServer = createServer((req, res) => {
    answering.add(res);
    res.once('close', () => answering.delete(res));
    void listener(req, res);
  });
  // Idle keep-alive sockets outlive the clients' own pool timeouts, so a client never
  // reuses a socket the server is closing at that moment (a spurious "other side closed").
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  if (options.faces.some((face) => face.upgrade)) {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => undefined);
      const upgrade: { req: IncomingMessage; socket: Duplex; head: Buffer; taken?: boolean } = { req, socket, head };
      Promise.resolve(app.fetch(upgradeRequest(req), { upgrade })).then(
        (response) => {
          if (!upgrade.taken) void writeUpgradeRefusal(socket, response).catch(() => socket.destroy());
        },
        (error: unknown) => {
          options.warn?.(`http: an upgrade failed: ${(error as Error).message}`);
          socket.destroy();
        },
      );
    });
  }
  await new Promise<void>((ready, fail) => {
    http.once('error', (error) => fail(options.listenError?.(error) ?? error));
    const listening = () => {
      replicaId ??= defaultReplicaId(hostname(), (http.address() as AddressInfo).port);
      ready();
    };
    if (options.listenFd !== undefined) http.listen({ fd: options.listenFd }, listening);
    else http.listen(options.port, options.host, listening);
  });
  const port = (http.address() as AddressInfo).port;
  const closed = new Promise<void>((done) => http.once('close', () => done()));
  return {
    origin: serverOrigin(options.host, port),
    port,
    replicaId: replicaId!,
    closed,
    async close() {
      const stopped = new Promise<void>((done) => http.close(() => done()));
      await answered(answering, ANSWER_GRACE_MS);
      http.closeAllConnections();
      await stopped;
    },
  };
}

/** How long a close waits for the answers under way (a drained turn's, written as it ends) before it drops them. */
const ANSWER_GRACE_MS = 5_000;

/**
 * Settles once every answer under way has been written, or after `timeoutMs`. Event streams
 * (SSE) are not waited for: they end only when their client goes. A drain lets running turns
 * finish (`agent.stop({ graceMs })`) and then closes the faces; the answer of a request that
 * waited on such a turn (an A2A `message/send`) is written a moment after, and the close had
 * dropped its connection first.
 */
function answered(responses: ReadonlySet<ServerResponse>, timeoutMs: number): Promise<void> {
  const waiting = [...responses].filter((response) => !String(response.getHeader('content-type') ?? '').startsWith('text/event-stream'));
  if (waiting.length === 0) return Promise.resolve();
  return new Promise<void>((done) => {
    const timer = setTimeout(done, timeoutMs);
    void Promise.all(waiting.map((response) => new Promise((closed) => response.once('close', closed)))).then(() => {
      clearTimeout(timer);
      done();
    });
  });
}

/** The upgrade as a body-less web request, for the app's guard, auth and routing. */
function upgradeRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of [value].flat()) headers.append(name, item);
  }
  // The path is all that routing reads; Host stays a header for the guard to check.
  return new Request(new URL(req.url ?? '/', 'http://localhost'), { method: req.method, headers });
}

/** The response with a body whose failure is a fresh `Error` (no stream error code); pulled only as the client reads. */
function plainErrors(response: Response): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(new Error(`the response stream failed: ${(error as Error).message}`));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
