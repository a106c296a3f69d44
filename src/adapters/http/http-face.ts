import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** A WebSocket upgrade the core admitted (Host, Origin and credentials checked), for the face to accept. */
export interface HttpUpgrade {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

/**
 * One protocol mounted on the HTTP core: a fetch handler (Request → Response) for its paths.
 * The core has already checked Host/Origin and, unless the path is public, the bearer token;
 * the face gets the principal the request speaks for.
 */
export interface HttpFace {
  /** Route patterns (Hono syntax) the face answers, e.g. `/acp` or `/a2a/rest/*`. */
  paths: readonly string[];
  /** Served without credentials (the principal is then `undefined`): the A2A agent card. */
  public?: boolean;
  fetch(request: Request, principal: string | undefined): Response | Promise<Response>;
  /** Takes over an admitted WebSocket upgrade; faces without it answer upgrades 426. */
  upgrade?(upgrade: HttpUpgrade, principal: string): void;
  /** The refusal of a request without valid credentials, in the protocol's own shape (HTTP 401). */
  unauthorized(request: Request): Response;
}
