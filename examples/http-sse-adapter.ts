/**
 * A custom adapter: an HTTP JSON endpoint. `POST /prompt` with `{ "prompt": "...", "sessionId"?: "..." }`
 * answers with server-sent events, one per agent event (`event: text-delta`, `event: tool-call`, ...),
 * starting with `event: session` (the session id, to continue the conversation).
 *
 *   plaited-agent --adapter ./examples/http-sse-adapter.ts --port 8787
 *   curl -N -X POST localhost:8787/prompt -H 'content-type: application/json' -d '{"prompt":"hi"}'
 *
 * There is nobody to ask for permission over a one-way stream, so write and external tools
 * are rejected (the `permission-request` event says so); allow them in the config instead.
 * In your own project, import the types from 'plaited-agent'.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentAdapter, AgentOutput } from '../src/index.js';

interface HttpSseOptions {
  host?: string;
  port?: number;
  log?: (level: 'error' | 'warn' | 'info' | 'debug', message: string) => void;
}

interface HttpSseServer {
  url: string;
  closed: Promise<void>;
  close(): Promise<void>;
}

const adapter: AgentAdapter<HttpSseOptions, HttpSseServer> = {
  name: 'http-sse',
  async wrap(agent, options = {}) {
    const server = createServer((req, res) => {
      if (req.method !== 'POST' || req.url !== '/prompt') return sendError(res, 404, 'POST /prompt only');
      void (async () => {
        let body: { prompt?: unknown; sessionId?: unknown };
        try {
          body = JSON.parse(await readBody(req)) as typeof body;
        } catch {
          return sendError(res, 400, 'the body must be JSON: {"prompt": "...", "sessionId"?: "..."}');
        }
        if (typeof body.prompt !== 'string' || body.prompt.length === 0) return sendError(res, 400, '"prompt" must be a non-empty string');
        const session =
          typeof body.sessionId === 'string' ? await agent.sessions.get(body.sessionId) : await agent.sessions.create({ cwd: process.cwd() });
        if (!session) return sendError(res, 404, `unknown session ${String(body.sessionId)}`);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        const send = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
        send('session', { sessionId: session.sessionId });
        // A client that hangs up cancels the turn.
        const controller = new AbortController();
        res.on('close', () => controller.abort());
        for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: body.prompt }] }, { signal: controller.signal })) {
          if (event.type === 'permission-request') {
            const reject = event.options.find((option) => option.kind === 'reject_once');
            event.respond(reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' });
            send(event.type, { ...withoutRespond(event), decision: 'rejected: no one to ask over a one-way stream' });
            continue;
          }
          send(event.type, event);
        }
        res.end();
      })().catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        // Once the event stream has begun, the failure is one more event, not a JSON body.
        if (res.headersSent) res.end(`event: error\ndata: ${JSON.stringify({ error: message })}\n\n`);
        else sendError(res, 500, message);
      });
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((ready, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? 8787, host, () => ready());
    });
    const url = `http://${host}:${(server.address() as AddressInfo).port}`;
    // stderr: the CLI's stdout is not ours to write on.
    process.stderr.write(`http-sse adapter listening on ${url}\n`);
    const closed = new Promise<void>((done) => server.once('close', () => done()));
    return {
      url,
      closed,
      close: () =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
    };
  },
};

export default adapter;

function withoutRespond(event: Extract<AgentOutput, { type: 'permission-request' }>) {
  const { respond: _respond, ...data } = event;
  return data;
}

function sendError(res: ServerResponse, status: number, error: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}
