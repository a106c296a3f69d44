import * as acp from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream, type WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { AcpSchemaValidator } from '../../helpers/acp-cli.js';
import { TEST_AUTH_TOKEN } from '../../helpers/test-auth-token.js';

export interface AcpHttpClient {
  connection: acp.ClientConnection;
  agent: acp.ClientContext;
  validator: AcpSchemaValidator;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  close(): void;
}

export interface AcpHttpClientOptions {
  /** `http` (the SDK's streamable HTTP client, default) or `websocket`. */
  transport?: 'http' | 'websocket';
  /** Bearer token sent on every request and on the upgrade (default: `TEST_AUTH_TOKEN`; `null`: none). */
  token?: string | null;
  /** WebSocket subprotocols to offer (a browser's way to send the token: `bearer.<token>`). */
  protocols?: string[];
  onPermission?: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  /** Told of every HTTP response (and of the WebSocket upgrade's 101): which replica answered, and for which connection id. */
  onResponse?: (seen: SeenResponse) => void;
}

/** One answer as the client saw it: the `Plaited-Replica` header, the request's method and `Acp-Connection-Id`. */
export interface SeenResponse {
  method: string;
  status: number;
  replica: string | null;
  /** The `Acp-Connection-Id` the request carried (none on `initialize` and the upgrade). */
  connectionId: string | null;
}

/**
 * The ACP SDK's client over its experimental HTTP (or WebSocket) transport, with every
 * message in both directions checked against the ACP schema, as the stdio harness does.
 */
export function connectAcpHttp(url: string, options: AcpHttpClientOptions = {}): AcpHttpClient {
  const token = options.token === undefined ? TEST_AUTH_TOKEN : options.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const seen = options.onResponse;
  const raw =
    options.transport === 'websocket'
      ? createWebSocketStream(url.replace(/^http/, 'ws'), { WebSocket: (seen ? seeingWebSocket(seen) : WebSocket) as unknown as WebSocketConstructor, headers, ...(options.protocols ? { protocols: options.protocols } : {}) })
      : createHttpStream(url, { headers, ...(seen ? { fetch: seeingFetch(seen) } : {}) });
  const validator = new AcpSchemaValidator();
  const fromAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      validator.check('agent', message as Parameters<AcpSchemaValidator['check']>[1]);
      controller.enqueue(message);
    },
  });
  const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      validator.check('client', message as Parameters<AcpSchemaValidator['check']>[1]);
      controller.enqueue(message);
    },
  });
  void raw.readable.pipeTo(fromAgent.writable).catch(() => undefined);
  void toAgent.readable.pipeTo(raw.writable).catch(() => undefined);

  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const app = acp.client({ name: 'plaited-http-test-client' });
  app.onRequest('session/request_permission', async ({ params }) => {
    permissions.push(params);
    return options.onPermission ? options.onPermission(params) : { outcome: { outcome: 'selected', optionId: params.options[0]!.optionId } };
  });
  app.onNotification('session/update', ({ params }) => {
    updates.push(params);
  });
  const connection = app.connect({ readable: fromAgent.readable, writable: toAgent.writable });
  return { connection, agent: connection.agent, validator, updates, permissions, close: () => connection.close() };
}

/** fetch, telling `seen` of each response. */
function seeingFetch(seen: (response: SeenResponse) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const connectionId = new Headers(init?.headers).get('acp-connection-id');
    seen({ method: init?.method ?? 'GET', status: response.status, replica: response.headers.get('plaited-replica'), connectionId });
    return response;
  };
}

/** ws's WebSocket, telling `seen` of the upgrade's 101. */
function seeingWebSocket(seen: (response: SeenResponse) => void): unknown {
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[], options?: ConstructorParameters<typeof WebSocket>[2]) {
      super(address, protocols, options);
      this.once('upgrade', (response) => {
        const replica = response.headers['plaited-replica'];
        seen({ method: 'UPGRADE', status: response.statusCode ?? 0, replica: typeof replica === 'string' ? replica : null, connectionId: null });
      });
    }
  };
}

/** The stdio harness's helpers work on an HTTP client too (they need only `agent` / `updates`). */
export { initialize as initializeHttp, agentText as textOf } from '../../helpers/acp-cli.js';
