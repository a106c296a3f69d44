import type { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

interface Entry {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** Who opened it: only this principal's requests reach it. */
  principal: string;
  /** Responses still streaming (a call in progress, the host's standalone SSE stream). */
  open: number;
  lastSeen: number;
}

/**
 * The 2025-era HTTP sessions: one MCP server instance each. A host that vanishes without
 * `DELETE` would leave its instance behind, so a session with no response streaming and no
 * request for `idleMs` is closed.
 */
export class McpHttpSessions {
  readonly #entries = new Map<string, Entry>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(private readonly idleMs: number) {
    this.#sweeper = setInterval(() => void this.sweep(), Math.max(50, Math.min(idleMs / 2, 60_000)));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  add(id: string, transport: WebStandardStreamableHTTPServerTransport, server: McpServer, principal: string): void {
    this.#entries.set(id, { transport, server, principal, open: 0, lastSeen: Date.now() });
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }

  /** Handles a request of session `id`; `undefined` when there is no such session for `principal`. */
  async handle(id: string, request: Request, principal: string): Promise<Response | undefined> {
    const entry = this.#entries.get(id);
    if (!entry || entry.principal !== principal) return undefined;
    entry.lastSeen = Date.now();
    return this.track(entry, await entry.transport.handleRequest(request));
  }

  /** Counts the response as open until its body is read to the end or cancelled. */
  track(entry: Entry, response: Response): Response;
  track(id: string, response: Response): Response;
  track(target: Entry | string, response: Response): Response {
    const entry = typeof target === 'string' ? this.#entries.get(target) : target;
    if (!entry || !response.body) return response;
    entry.open++;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      entry.open--;
      entry.lastSeen = Date.now();
    };
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  async sweep(now = Date.now()): Promise<void> {
    for (const [id, entry] of this.#entries) {
      if (entry.open > 0 || now - entry.lastSeen < this.idleMs) continue;
      this.#entries.delete(id);
      await closeEntry(entry);
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) await closeEntry(entry);
  }
}

async function closeEntry(entry: Entry): Promise<void> {
  await entry.transport.close().catch(() => undefined);
  await entry.server.close().catch(() => undefined);
}
