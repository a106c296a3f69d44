import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NodeWebSocketUpgradeServer } from '@agentclientprotocol/sdk/experimental/node';
import type { WebSocket, WebSocketServer } from 'ws';
import { INVALID_REQUEST, errorResponse, inspectJsonRpcText, type Intake } from '../json-rpc/inspect-json-rpc.js';
import { JsonRpcBatches, parseBatch } from '../json-rpc/json-rpc-batches.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { asksForAcpV2 } from './asks-for-acp-v2.js';

type Listener = (...args: unknown[]) => void;
type Warn = ((message: string) => void) | undefined;

/**
 * The WebSocket server as the SDK's upgrade handler sees it, with a gate in front of each
 * socket's incoming frames. The SDK answers a batch with one `id: null` error and closes the
 * socket (1002) on any first message that is not `initialize`; the gate answers these itself,
 * as JSON-RPC says: each request of a batch gets its own -32600 (notifications nothing), and a
 * request before `initialize` gets an error with its id while the socket stays open. On a v2
 * (draft) connection a batch is answered instead: its entries go to the SDK one by one and
 * their answers come back as one array frame.
 */
export function gateAcpWebSockets(server: WebSocketServer, limits: JsonRpcLimits, warn: Warn): NodeWebSocketUpgradeServer {
  return {
    on: (event, listener) => void server.on(event, listener),
    off: (event, listener) => void server.off(event, listener),
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, accept) {
      server.handleUpgrade(req, socket, head, (webSocket) => accept(gatedSocket(webSocket, limits, warn)));
    },
  };
}

type SdkSocket = Parameters<Parameters<NodeWebSocketUpgradeServer['handleUpgrade']>[3]>[0];

function gatedSocket(webSocket: WebSocket, limits: JsonRpcLimits, warn: Warn): SdkSocket {
  let initializeSeen = false;
  /** Set by a v2 `initialize`: the draft answers batches. */
  let batches: JsonRpcBatches | undefined;
  /** `true`: answered here; `false`: the SDK's as it is; a list: the SDK's, one message at a time. */
  const route = (text: string): boolean | string[] => {
    const batch = text.trimStart().startsWith('[');
    const entries = batch && batches ? parseBatch(text, limits) : undefined;
    if (entries) {
      const opened = batches!.open(entries);
      for (const warning of opened.warnings) warn?.(`acp: ${warning}`);
      if (opened.complete) webSocket.send(JSON.stringify(opened.complete));
      return opened.dispatch.map((message) => JSON.stringify(message));
    }
    if (!batch && initializeSeen) return false;
    const intake = inspectJsonRpcText(text, limits);
    if ('accept' in intake) {
      const { method, id } = intake.accept;
      if (!initializeSeen && method === 'initialize' && id !== undefined && id !== null) {
        initializeSeen = true;
        if (asksForAcpV2(intake.accept)) batches = new JsonRpcBatches(limits);
        return false;
      }
      return refuseBeforeInitialize(intake.accept, webSocket, warn);
    }
    reply(webSocket, intake, warn);
    return true;
  };
  const send = (data: string): void => {
    const taken = batches && batches.pending > 0 ? batches.take(JSON.parse(data)) : undefined;
    if (!taken?.held) return webSocket.send(data);
    if (taken.complete) webSocket.send(JSON.stringify(taken.complete));
  };
  const wrapped = new Map<Listener, Listener>();
  const gated: Record<string, unknown> = {
    send,
    close: (code?: number, reason?: string) => webSocket.close(code, reason),
    on(type: string, listener: Listener) {
      const forward: Listener =
        type === 'message'
          ? (data, isBinary) => {
              const verdict = isBinary === false ? route(textOf(data)) : false;
              if (verdict === false) return listener(data, isBinary);
              if (verdict !== true) for (const text of verdict) listener(text, false);
            }
          : listener;
      wrapped.set(listener, forward);
      webSocket.on(type, forward);
    },
    off(type: string, listener: Listener) {
      webSocket.off(type, wrapped.get(listener) ?? listener);
      wrapped.delete(listener);
    },
  };
  Object.defineProperty(gated, 'bufferedAmount', { get: () => webSocket.bufferedAmount });
  return gated as unknown as SdkSocket;
}

/** Before `initialize`: a request is refused with its id; a notification or a response is dropped. */
function refuseBeforeInitialize(message: Record<string, unknown>, webSocket: WebSocket, warn: Warn): true {
  const method = typeof message.method === 'string' ? message.method : undefined;
  if (method === undefined || !('id' in message) || message.id === null) {
    warn?.(`acp: dropped a message sent before initialize${method ? ` (${method.slice(0, 64)})` : ''}`);
    return true;
  }
  const text = method === 'initialize' ? 'initialize needs an id' : `the first request on a connection must be initialize, not ${method.slice(0, 64)}`;
  reply(webSocket, { reply: errorResponse(message.id as string | number, INVALID_REQUEST, `Invalid Request: ${text}; send initialize first`), warning: `refused ${method.slice(0, 64)} before initialize` }, warn);
  return true;
}

function reply(webSocket: WebSocket, intake: Exclude<Intake, { accept: unknown }>, warn: Warn): void {
  warn?.(`acp: ${intake.warning}`);
  if (intake.reply !== undefined) webSocket.send(JSON.stringify(intake.reply));
}

function textOf(data: unknown): string {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return Buffer.from(data as Uint8Array).toString('utf8');
}
