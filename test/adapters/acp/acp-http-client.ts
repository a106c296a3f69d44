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
}

/**
 * The ACP SDK's client over its experimental HTTP (or WebSocket) transport, with every
 * message in both directions checked against the ACP schema, as the stdio harness does.
 */
export function connectAcpHttp(url: string, options: AcpHttpClientOptions = {}): AcpHttpClient {
  const token = options.token === undefined ? TEST_AUTH_TOKEN : options.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const raw =
    options.transport === 'websocket'
      ? createWebSocketStream(url.replace(/^http/, 'ws'), { WebSocket: WebSocket as unknown as WebSocketConstructor, headers, ...(options.protocols ? { protocols: options.protocols } : {}) })
      : createHttpStream(url, { headers });
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

/** The stdio harness's helpers work on an HTTP client too (they need only `agent` / `updates`). */
export { initialize as initializeHttp, agentText as textOf } from '../../helpers/acp-cli.js';
