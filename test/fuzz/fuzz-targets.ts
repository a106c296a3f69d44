import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { startRawCli, type RawJsonRpcCli, type RawMessage } from '../helpers/raw-json-rpc-cli.js';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';

/** One protocol face over one transport, driven with raw text. */
export interface FuzzTarget {
  /** The project folder the CLI runs in (a valid session cwd). */
  cwd: string;
  send(text: string): Promise<void>;
  response(id: string, timeoutMs?: number): Promise<RawMessage>;
  /** Sends a well-formed request and resolves with its response. */
  request(method: string, params?: unknown): Promise<RawMessage>;
  /** The process runs and (for connection transports) the connection is open. */
  alive(): boolean;
  /** Anything the agent wrote that is not JSON-RPC. */
  violations: string[];
  stderr(): string;
  close(): Promise<void>;
}

/** Small enough that oversized lines stay cheap to generate. */
export const FUZZ_MAX_MESSAGE_BYTES = 64 * 1024;

export function fuzzProject(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-fuzz-'));
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(
    join(cwd, '.plaited', 'config.json'),
    JSON.stringify({ adapters: { acp: { maxMessageBytes: FUZZ_MAX_MESSAGE_BYTES }, mcp: { maxMessageBytes: FUZZ_MAX_MESSAGE_BYTES } } }),
  );
  return cwd;
}

let counter = 0;
const requestId = () => `ok-${++counter}`;

export function stdioTarget(args: string[]): FuzzTarget {
  const cwd = fuzzProject();
  const cli: RawJsonRpcCli = startRawCli({ cwd, args });
  return {
    cwd,
    send: (text) => cli.write(`${text}\n`),
    response: (id, timeoutMs) => cli.response(id, timeoutMs),
    request: (method, params) => cli.request(method, params, requestId()),
    alive: () => cli.child.exitCode === null && cli.child.signalCode === null,
    violations: cli.violations,
    stderr: cli.stderr,
    async close() {
      await cli.close();
    },
  };
}

/** Responses collected from any transport, matched by id. */
class Inbox {
  readonly messages: RawMessage[] = [];
  readonly violations: string[] = [];
  #waiters: Array<() => void> = [];

  accept(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.violations.push(text.slice(0, 300));
      return;
    }
    const all = Array.isArray(parsed) ? parsed : [parsed];
    for (const message of all as RawMessage[]) {
      if (message?.jsonrpc !== '2.0') this.violations.push(JSON.stringify(message).slice(0, 300));
      else this.messages.push(message);
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  response(id: string, timeoutMs: number, describe: () => string): Promise<RawMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response to ${id} within ${timeoutMs} ms; ${describe()}`)), timeoutMs);
      const check = () => {
        const found = this.messages.find((message) => message.method === undefined && message.id === id);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else this.#waiters.push(check);
      };
      check();
    });
  }
}

/** ACP over WebSocket at the HTTP server's /acp (text frames are the messages). */
export async function acpWebSocketTarget(args: string[]): Promise<FuzzTarget> {
  const cwd = fuzzProject();
  const http: HttpCli = await startHttpCli({ cwd, args, urlPattern: /ACP over HTTP at (http:\/\/\S+\/acp)/ });
  const inbox = new Inbox();
  const socket = new WebSocket(http.url.replace(/^http/, 'ws'), { headers: TEST_AUTH_HEADERS });
  socket.on('message', (data) => inbox.accept(String(data)));
  await new Promise<void>((open, fail) => {
    socket.once('open', () => open());
    socket.once('error', fail);
  });
  return {
    cwd,
    send: (text) => new Promise((done, fail) => socket.send(text, (error) => (error ? fail(error) : done()))),
    response: (id, timeoutMs = 20_000) => inbox.response(id, timeoutMs, () => `socket state ${socket.readyState}; stderr:\n${http.stderr().slice(-1500)}`),
    async request(method, params) {
      const id = requestId();
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
      return inbox.response(id, 20_000, () => http.stderr().slice(-1500));
    },
    alive: () => http.child.exitCode === null && socket.readyState === WebSocket.OPEN,
    violations: inbox.violations,
    stderr: http.stderr,
    async close() {
      socket.close();
      await http.close();
    },
  };
}

/** MCP over streamable HTTP: one POST per message, answered as JSON or as an SSE stream. */
export async function mcpHttpTarget(args: string[]): Promise<FuzzTarget> {
  const cwd = fuzzProject();
  const http: HttpCli = await startHttpCli({ cwd, args, urlPattern: /MCP over streamable HTTP at (http:\/\/\S+\/mcp)/ });
  const inbox = new Inbox();
  let sessionId: string | undefined;
  const post = async (text: string): Promise<void> => {
    const response = await fetch(http.url, {
      method: 'POST',
      headers: {
        ...TEST_AUTH_HEADERS,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body: text,
    });
    sessionId ??= response.headers.get('mcp-session-id') ?? undefined;
    const body = await response.text();
    if (!body.trim()) return;
    if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for (const line of body.split('\n')) if (line.startsWith('data:') && line.slice(5).trim()) inbox.accept(line.slice(5).trim());
    } else inbox.accept(body);
  };
  const target: FuzzTarget = {
    cwd,
    send: post,
    response: (id, timeoutMs = 20_000) => inbox.response(id, timeoutMs, () => http.stderr().slice(-1500)),
    async request(method, params) {
      const id = requestId();
      await post(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
      return inbox.response(id, 20_000, () => http.stderr().slice(-1500));
    },
    alive: () => http.child.exitCode === null,
    violations: inbox.violations,
    stderr: http.stderr,
    close: () => http.close(),
  };
  return target;
}
