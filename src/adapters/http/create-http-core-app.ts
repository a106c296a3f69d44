import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { createHostOriginCheck } from './host-origin-check.js';
import type { HttpFace, HttpUpgrade } from './http-face.js';
import type { NetworkAuth } from './network-auth.js';
import { REPLICA_HEADER } from './replica-id.js';
import { requestPrincipal } from './request-principal.js';

/** What a request reaches the core with: Node's request and response, or (for a WebSocket upgrade) the socket. */
export type HttpCoreBindings = Partial<HttpBindings> & { upgrade?: HttpUpgrade & { taken?: boolean } };

export interface HttpCoreAppOptions {
  /** Bind host: Host must name it (or localhost). */
  host: string;
  allowedOrigins?: readonly string[];
  auth: NetworkAuth;
  faces: readonly HttpFace[];
  /** The refusal of a request whose Host or Origin is not allowed (HTTP 403), in the faces' shape. */
  forbidden(reason: string): Response;
  /** The answer to a path no face serves (HTTP 404). */
  notFound(request: Request): Response;
  /**
   * The answer when a face throws (HTTP 500), in the face's shape, naming the cause and what to
   * do (see internal-error-message.ts); the error is reported to `warn`. `request` is absent when
   * the failure came after the request was handed over (the response stream).
   */
  failed(error: Error, request?: Request): Response;
  warn?: (message: string) => void;
  /** What `/readyz` waits for (the agent's store answering); absent: ready once listening. */
  ready?: () => Promise<void>;
  /** This replica's route name, sent as `Plaited-Replica` on every response (known once listening). */
  replica?: () => string | undefined;
}

type CoreContext = Context<{ Bindings: HttpCoreBindings; Variables: { principal: string | undefined } }>;

/**
 * The one HTTP core of every network face, as a Hono app: the DNS-rebinding guard (Host and
 * Origin) runs first for every request and every WebSocket upgrade, then the bearer-token
 * auth of the face's route (a WebSocket upgrade may carry the token as a `bearer.<token>`
 * subprotocol; a plain request must send `Authorization`), then the face's fetch handler.
 */
export function createHttpCoreApp(options: HttpCoreAppOptions): Hono<{ Bindings: HttpCoreBindings; Variables: { principal: string | undefined } }> {
  const checkHostOrigin = createHostOriginCheck({ host: options.host, allowedOrigins: options.allowedOrigins });
  const app = new Hono<{ Bindings: HttpCoreBindings; Variables: { principal: string | undefined } }>();
  // First, so that every answer names the replica (health checks and refusals too): behind a
  // balancer, which replica answered is what an operator asks first.
  app.use('*', async (c, next) => {
    await next();
    const replica = options.replica?.();
    if (!replica) return;
    try {
      c.res.headers.set(REPLICA_HEADER, replica);
    } catch {
      // Immutable headers (a Response.redirect, a fetched response): the same answer, copied.
      const headers = new Headers(c.res.headers);
      headers.set(REPLICA_HEADER, replica);
      c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
    }
  });
  addHealthRoutes(app, options);
  app.use('*', async (c, next) => {
    const refused = checkHostOrigin({ host: c.req.header('host'), origin: c.req.header('origin') });
    if (refused) return options.forbidden(refused);
    await next();
  });
  for (const face of options.faces) {
    for (const path of face.paths) {
      app.all(path, async (c, next) => {
        if (face.public) return next();
        const upgrade = c.env?.upgrade !== undefined;
        const principal = requestPrincipal(options.auth, {
          authorization: c.req.header('authorization'),
          ...(upgrade ? { webSocketProtocol: c.req.header('sec-websocket-protocol') } : {}),
        });
        if (principal === undefined) return face.unauthorized(c.req.raw);
        c.set('principal', principal);
        await next();
      });
      app.all(path, (c) => serveFace(face, c));
    }
  }
  app.notFound((c) => options.notFound(c.req.raw));
  app.onError((error, c) => {
    options.warn?.(`http: a request failed: ${error.message}`);
    return options.failed(error, c.req.raw);
  });
  return app;
}

function serveFace(face: HttpFace, c: CoreContext): Response | Promise<Response> {
  const principal = c.get('principal');
  const upgrade = c.env?.upgrade;
  if (!upgrade) return face.fetch(c.req.raw, principal);
  if (!face.upgrade || principal === undefined) return new Response('This endpoint does not take WebSocket upgrades', { status: 426, headers: { 'content-type': 'text/plain' } });
  upgrade.taken = true;
  face.upgrade(upgrade, principal);
  // The face owns the socket now; the core writes nothing more to it.
  return new Response(null, { status: 204 });
}

/**
 * `/healthz` (the process answers) and `/readyz` (its store answers), for a balancer's checks:
 * unauthenticated and before the Host guard (a balancer names the backend by address), so they
 * say nothing but the state and an error code; the cause goes to `warn`.
 */
function addHealthRoutes(app: Hono<{ Bindings: HttpCoreBindings; Variables: { principal: string | undefined } }>, options: HttpCoreAppOptions): void {
  const plain = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain', 'cache-control': 'no-store' } });
  app.get('/healthz', () => plain(200, 'ok\n'));
  app.get('/readyz', async () => {
    try {
      await options.ready?.();
      return plain(200, 'ready\n');
    } catch (error) {
      const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'unavailable';
      options.warn?.(`readyz: not ready: ${(error as Error).message}`);
      return plain(503, `not ready: ${code}\n`);
    }
  });
}
