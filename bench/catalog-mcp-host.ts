/**
 * Serves recorded MCP catalogs (bench/data/real-mcp-catalog/catalog.json) as real MCP servers
 * over streamable HTTP on 127.0.0.1, all in this process: one path per server
 * (`/<id>/mcp`), each answering `initialize` with the recorded `serverInfo` and `tools/list`
 * with the recorded tools verbatim. The registry connects to them as to any HTTP server, so
 * the evals and the scale bench go through the real client, registry and index; one process
 * instead of hundreds of children keeps 10,000 tools affordable on a 2-core machine.
 * A tool call answers with an error result: the recording holds no behaviour.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server, WebStandardStreamableHTTPServerTransport, type Tool } from '@modelcontextprotocol/server';
import { mcpServerSchema, type McpServerConfig } from '../src/config/schema.js';

export interface RecordedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

export interface RecordedServer {
  id: string;
  serverInfo?: { name?: string; version?: string; title?: string };
  instructions?: string;
  tools: RecordedTool[];
}

export interface CatalogHost {
  port: number;
  /** One HTTP server config per hosted catalog, for `registry.servers.add`. */
  configs: McpServerConfig[];
  close(): Promise<void>;
}

/** The recorded servers of a catalog.json (servers without tools are left out). */
export function loadRecordedServers(dataDir: string): RecordedServer[] {
  const catalog = JSON.parse(readFileSync(join(dataDir, 'catalog.json'), 'utf8')) as { servers: Array<RecordedServer & { tools: RecordedTool[] | null }> };
  return catalog.servers.filter((server) => Array.isArray(server.tools) && server.tools.length > 0);
}

export async function startCatalogHost(servers: readonly RecordedServer[]): Promise<CatalogHost> {
  const byId = new Map(servers.map((server) => [server.id, server]));
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const recorded = byId.get(decodeURIComponent(url.pathname.split('/')[1] ?? ''));
    if (!recorded) return void res.writeHead(404).end('unknown server');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) return void res.writeHead(404).end('unknown session');
      const created = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      transport = created;
      await recordedServer(recorded).connect(transport);
    }
    const response = await transport.handleRequest(toWebRequest(req, body));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    res.writeHead(response.status, headers);
    if (response.body) {
      const reader = response.body.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) res.write(next.value);
    }
    res.end();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`catalog host: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // The scale bench connects ~1,000 servers at once: Node's default backlog (511) drops some of them.
  await new Promise<void>((resolve) => http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    port,
    configs: servers.map((server) =>
      mcpServerSchema.parse({ id: server.id, transport: 'http', url: `http://127.0.0.1:${port}/${encodeURIComponent(server.id)}/mcp`, timeoutMs: 30_000 }),
    ),
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function recordedServer(recorded: RecordedServer): Server {
  const server = new Server(
    { name: recorded.serverInfo?.name ?? recorded.id, version: recorded.serverInfo?.version ?? '0.0.0' },
    { capabilities: { tools: {} }, ...(recorded.instructions ? { instructions: recorded.instructions } : {}) },
  );
  server.setRequestHandler('tools/list', () => ({ tools: recorded.tools as unknown as Tool[] }));
  server.setRequestHandler('tools/call', (request) => ({
    content: [{ type: 'text', text: `${request.params.name}: a recorded catalog has no behaviour` }],
    isError: true,
  }));
  return server;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function toWebRequest(req: IncomingMessage, body: string | undefined): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else if (value !== undefined) headers.set(key, value);
  }
  return new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, body });
}
