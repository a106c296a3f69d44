import pg from 'pg';

/** How long a lost LISTEN connection waits before it is opened again. */
const RECONNECT_MS = 500;

type Watcher = { listener: () => void; onListen: boolean };

/**
 * A replica's one LISTEN connection (LISTEN holds a connection, so it is not the pool's), shared
 * by every change feed: session events and A2A tasks. A notification's payload is a key (a task
 * id), or a key, a space and a detail (`<session id> <last seq>`); it is handed to the watchers
 * of that key on that channel. Opened with the first watcher, re-opened after {@link RECONNECT_MS}
 * while anyone watches. Each time it listens again after a loss, every watcher (except the
 * `onListen: false` ones: requests, not changes) is told once: what was written meanwhile was
 * not heard. (Before the first LISTEN, a watcher reads after `listening()` itself.)
 */
export class PostgresListener {
  readonly #watchers = new Map<string, Set<Watcher>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #listened = false;

  constructor(
    private readonly url: string,
    private readonly channels: readonly string[],
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  /** Tells `listener` of each notification for `key` on `channel` until the returned function is called. */
  watch(channel: string, key: string, listener: () => void, options: { onListen?: boolean } = {}): () => void {
    const name = `${channel}\0${key}`;
    const set = this.#watchers.get(name) ?? new Set<Watcher>();
    this.#watchers.set(name, set);
    const watcher = { listener, onListen: options.onListen !== false };
    set.add(watcher);
    void this.listening().catch(() => undefined);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.#watchers.get(name) === set) this.#watchers.delete(name);
    };
  }

  /** Resolves once the connection listens (rejects when it cannot; it is retried in the background). */
  listening(): Promise<void> {
    if (this.#client || this.#closed) return Promise.resolve();
    this.#connecting ??= this.#connect()
      .catch((error: unknown) => {
        this.warn(`PostgreSQL change feed: cannot listen (${(error as Error).message}); retrying`);
        this.#scheduleReconnect();
        throw error;
      })
      .finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#watchers.clear();
    await this.#connecting?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
    client.on('notification', (message) => this.#dispatch(message.channel, message.payload));
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(this.channels.map((channel) => `LISTEN ${channel}`).join('; '));
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) return void (await client.end().catch(() => undefined));
    this.#client = client;
    if (this.#listened) for (const set of [...this.#watchers.values()]) tell(set, true);
    this.#listened = true;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry || this.#watchers.size === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.listening().catch(() => undefined);
    }, RECONNECT_MS).unref();
  }

  #dispatch(channel: string, payload: string | undefined): void {
    if (!payload) return;
    const exact = this.#watchers.get(`${channel}\0${payload}`);
    if (exact) return tell(exact, false);
    const space = payload.lastIndexOf(' ');
    if (space > 0) tell(this.#watchers.get(`${channel}\0${payload.slice(0, space)}`), false);
  }
}

function tell(set: Set<Watcher> | undefined, onListen: boolean): void {
  for (const watcher of [...(set ?? [])]) {
    if (onListen && !watcher.onListen) continue;
    try {
      watcher.listener();
    } catch {
      // A watcher's failure is its own; the others are still told.
    }
  }
}
