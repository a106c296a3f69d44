import pg from 'pg';

const RECONNECT_MS = 1_000;

/**
 * The change feed of A2A tasks across replicas: one dedicated connection (LISTEN holds it, so
 * it is not the pool's) listening on a channel whose payload is a task id. Connected on the
 * first watch; a dropped connection is re-made (after {@link RECONNECT_MS}) while anyone
 * watches. Each time the feed starts listening every watcher is told once, as a save made
 * before (or while the connection was down) was not heard.
 */
export class PostgresTaskFeed {
  readonly #watchers = new Map<string, Set<() => void>>();
  /** Watchers told only of notifications, not when the feed starts listening (requests, not changes). */
  readonly #signalOnly = new WeakSet<() => void>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  watch(taskId: string, listener: () => void, options: { onListen?: boolean } = {}): () => void {
    if (options.onListen === false) this.#signalOnly.add(listener);
    let set = this.#watchers.get(taskId);
    if (!set) this.#watchers.set(taskId, (set = new Set()));
    set.add(listener);
    this.#ensureConnected();
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(taskId) === set) this.#watchers.delete(taskId);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#watchers.clear();
    const client = this.#client;
    this.#client = undefined;
    await this.#connecting?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  #ensureConnected(): void {
    if (this.#closed || this.#client || this.#connecting) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload) this.#tell(this.#watchers.get(message.payload));
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    this.#connecting = (async () => {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.#closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.#client = client;
      // Saves made before the feed listened were not heard: every watcher looks (again) now.
      for (const set of [...this.#watchers.values()]) this.#tell(set, true);
    })()
      .catch((error: unknown) => {
        this.warn(`A2A task feed: cannot listen (${(error as Error).message}); retrying`);
        void client.end().catch(() => undefined);
        this.#retry();
      })
      .finally(() => {
        this.#connecting = undefined;
      });
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#retry();
  }

  #retry(): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#watchers.size === 0) return;
      this.#ensureConnected();
    }, RECONNECT_MS).unref();
  }

  #tell(set: Set<() => void> | undefined, onListen = false): void {
    for (const listener of [...(set ?? [])]) {
      if (onListen && this.#signalOnly.has(listener)) continue;
      try {
        listener();
      } catch {
        // A watcher's failure is its own; the others are still told.
      }
    }
  }
}
