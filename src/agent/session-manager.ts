import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ModelMessage } from 'ai';
import type { AgentOutput } from '../contracts/agent-output.js';
import type { McpServerConfig } from '../config/schema.js';
import type { CreateSessionOptions, ForkSessionOptions, SessionInfo, SessionManager, SessionMode, SessionOptions, SessionReplay } from './agent.js';
import type { PermissionMemory } from './tool-policy.js';
import type { SessionStorage, SessionStores } from '../storage/session-storage.js';
import type { StoredSession } from '../storage/session-records.js';
import type { SteeringQueue } from './steering-queue.js';
import type { EventRecorder } from './event-recorder.js';
import { recoverInterruptedReply } from './recover-interrupted-reply.js';
import { AgentError } from './agent-error.js';
import { repairStoredMessages } from './repair-stored-messages.js';
import { agentOutputsFromRecords, sessionInfoFromRecord } from './session-record-mapping.js';
import { followSession } from './follow-session.js';

/** A session held in memory: its store, its model-facing history, and its turn queue. */
export interface LiveSession {
  info: SessionInfo;
  store: SessionStorage;
  messages: ModelMessage[];
  permissions: PermissionMemory;
  /** Resolves when the previous turn has finished: turns of one session never overlap. */
  tail: Promise<void>;
  /** The running turn, if any. */
  running: { controller: AbortController; steering: SteeringQueue; recorder?: EventRecorder; key?: object } | undefined;
  /** A turn was cut short and its streamed draft could not be folded into the history yet (a full disk). */
  draftLeft?: boolean;
  /** Resolves once extensions finished `onSessionStart` (its MCP servers are connected). */
  ready: Promise<void>;
  /** `onSessionStart` has begun, with `info` as it was then: a later change of its MCP servers is applied by `onServersChange`. */
  started?: boolean;
  /** A change of its MCP servers under way: a close waits for it, so no server outlives the session. */
  changing?: Promise<void>;
}

export interface SessionHooks {
  onStart(session: SessionInfo): Promise<void>;
  onClose(sessionId: string): Promise<void>;
  /** A started session's MCP servers changed (a load or resume naming others): applied between turns. */
  onServersChange?(session: SessionInfo): Promise<void>;
  /** Before the fork starts: what extensions keep per session follows it. */
  onFork?(from: SessionInfo, to: SessionInfo): Promise<void>;
  /** After the store deleted it: what extensions keep per session goes too. */
  onDelete?(session: SessionInfo): Promise<void>;
}

/** Sessions over the stores (SQLite files or a database server): new ones, ones in memory, and ones found on disk after a restart. */
export class LocalSessionManager implements SessionManager {
  readonly #live = new Map<string, LiveSession>();
  readonly #opening = new Map<string, Promise<LiveSession>>();
  /** Closes under way, by session: a second close, and the agent's stop, wait for the same one. */
  readonly #closing = new Map<string, Promise<void>>();

  constructor(
    readonly stores: SessionStores,
    private readonly defaultMode: SessionMode,
    private readonly hooks: SessionHooks,
  ) {}

  async create(options: CreateSessionOptions): Promise<SessionInfo> {
    const cwd = resolve(options.cwd);
    const store = this.stores.forProject(cwd);
    const stored = await store.createSession({
      sessionId: options.sessionId ?? randomUUID(),
      cwd,
      mode: options.mode ?? this.defaultMode,
      mcpServers: options.mcpServers ?? [],
      parentSessionId: options.parentSessionId ?? null,
      owner: options.owner ?? null,
    });
    await store.leases.acquire(stored.sessionId); // a new id: nobody else holds it
    for (const [key, value] of Object.entries(options.options ?? {})) if (value !== undefined) await store.settings.set(stored.sessionId, key, value);
    return (await this.#attach(sessionInfoFromRecord(stored), store, [])).info;
  }

  async fork(sessionId: string, options: ForkSessionOptions): Promise<SessionInfo> {
    const live = this.#live.get(sessionId);
    if (live?.running) {
      throw new AgentError(
        'session_busy',
        `Session "${sessionId}" has a turn running: wait for it to end (or cancel it with session/cancel), then fork`,
      );
    }
    const source = await this.#find(sessionId, live?.info.cwd ?? options.cwd);
    if (!source) throw new AgentError('session_not_found', `Session "${sessionId}" not found`);
    const cwd = resolve(options.cwd);
    const store = this.stores.forProject(cwd);
    const forked = await source.store.forkSession(
      sessionId,
      {
        sessionId: randomUUID(),
        cwd,
        title: source.session.title,
        mode: source.session.mode,
        mcpServers: options.mcpServers ?? [],
        owner: options.owner ?? null,
      },
      store,
      // The fork's own MCP servers, over a list the source's load or resume stored.
      { ...options.options, mcpServers: options.mcpServers ?? [] },
    );
    await store.leases.acquire(forked.sessionId); // a new id: nobody else holds it
    const info = sessionInfoFromRecord(forked);
    await this.hooks.onFork?.(live?.info ?? sessionInfoFromRecord(source.session), info);
    return (await this.#attach(info, store, repairStoredMessages(await store.loadMessages(forked.sessionId)))).info;
  }

  async get(sessionId: string, cwd?: string): Promise<SessionInfo | undefined> {
    const live = this.#live.get(sessionId);
    if (live) return live.info;
    const found = await this.#find(sessionId, cwd);
    return found ? await withOptions(sessionInfoFromRecord(found.session), found.store) : undefined;
  }

  async list(options: { cwd?: string } = {}): Promise<SessionInfo[]> {
    const stores = options.cwd ? [this.stores.forProject(resolve(options.cwd))] : this.#knownStores();
    const cwd = options.cwd ? resolve(options.cwd) : undefined;
    const seen = new Set<string>();
    const sessions: SessionInfo[] = [];
    for (const store of stores) {
      for (const session of await store.listSessions(cwd ? { cwd } : {})) {
        if (seen.has(session.sessionId) || session.parentSessionId) continue;
        seen.add(session.sessionId);
        sessions.push(await withOptions(sessionInfoFromRecord(session), store));
      }
    }
    return sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  async history(sessionId: string, cwd?: string): Promise<AgentOutput[]> {
    let live: LiveSession;
    try {
      live = await this.open(sessionId, cwd);
    } catch (error) {
      // Reading writes nothing: a session another process has open is read as stored so far
      // (`sessions export`, an MCP transcript) instead of being refused like a prompt.
      const held = AgentError.isInstance(error) && error.code === 'session_in_use' ? await this.#find(sessionId, cwd) : undefined;
      if (!held) throw error;
      return agentOutputsFromRecords(await held.store.loadEvents(sessionId));
    }
    return agentOutputsFromRecords(await live.store.loadEvents(sessionId));
  }

  /**
   * The history, followed live while a turn runs (see `SessionManager.replay`): a session held by
   * another live replica is read through its store's feed instead of being refused; a store
   * without a feed (SQLite) answers as `history` does.
   */
  async replay(sessionId: string, cwd: string | undefined, signal: AbortSignal): Promise<SessionReplay> {
    let live: LiveSession;
    try {
      live = await this.open(sessionId, cwd);
    } catch (error) {
      const feed = AgentError.isInstance(error) && error.code === 'session_in_use' ? (await this.#find(sessionId, cwd))?.store.feed : undefined;
      if (!feed) throw error;
      return followSession(feed, sessionId, signal);
    }
    if (live.running && live.store.feed) return followSession(live.store.feed, sessionId, signal);
    return { history: agentOutputsFromRecords(await live.store.loadEvents(sessionId)) };
  }

  async setMode(sessionId: string, mode: SessionMode): Promise<void> {
    const live = await this.open(sessionId);
    await live.store.updateSession(sessionId, { mode });
    live.info = { ...live.info, mode };
  }

  async activate(sessionId: string, cwd?: string): Promise<SessionInfo> {
    return (await this.open(sessionId, cwd)).info;
  }

  async setOptions(sessionId: string, options: SessionOptions): Promise<SessionInfo> {
    const live = await this.open(sessionId);
    // In memory first: a session this call opened starts its extensions a tick later, with these.
    const { mcpServers, ...choices } = options;
    const serversChanged = mcpServers !== undefined && live.started === true && JSON.stringify(mcpServers) !== JSON.stringify(live.info.mcpServers);
    live.info = { ...live.info, ...(mcpServers ? { mcpServers } : {}), options: { ...live.info.options, ...choices } };
    for (const [key, value] of Object.entries(options)) if (value !== undefined) await live.store.settings.set(sessionId, key, value);
    await live.store.updateSession(sessionId, {});
    if (serversChanged) this.#betweenTurns(live, () => this.hooks.onServersChange?.(live.info));
    return live.info;
  }

  /**
   * Runs `work` once the running turn and those queued before it have ended, and before any turn
   * queued later: a session's MCP servers are not swapped under a tool call in flight.
   */
  #betweenTurns(live: LiveSession, work: () => Promise<void> | undefined): void {
    const run = async (): Promise<void> => {
      await live.ready;
      // Closed meanwhile: its servers are gone with it, none is started again.
      if (this.#live.get(live.info.sessionId) !== live) return;
      live.changing = Promise.resolve(work()).catch(() => undefined);
      await live.changing;
    };
    live.tail = live.tail.then(run).catch(() => undefined);
  }

  async close(sessionId: string): Promise<void> {
    const closing = this.#closing.get(sessionId);
    if (closing) return closing;
    const live = this.#live.get(sessionId);
    if (!live) return;
    live.running?.controller.abort();
    this.#live.delete(sessionId);
    const done = (async () => {
      await live.changing;
      await live.store.leases.release(sessionId).catch(() => undefined);
      await this.hooks.onClose(sessionId);
    })().finally(() => this.#closing.delete(sessionId));
    this.#closing.set(sessionId, done);
    return done;
  }

  /**
   * Settles once the closes under way have ended: a session leaves `liveSessions` when its close
   * begins, so the agent's stop waits here for one a client closed just before (its lease, its
   * extensions' hooks: an MCP server of the session and the placeholders around it).
   */
  async closesSettled(): Promise<void> {
    await Promise.allSettled([...this.#closing.values()]);
  }

  async delete(sessionId: string): Promise<void> {
    // Found without opening it: opening would start (connect) its extensions just to delete it.
    const live = this.#live.get(sessionId);
    const found = live ? undefined : await this.#find(sessionId);
    const store = live?.store ?? found?.store;
    // One writer per session: another process's open session (a turn running there) is not deleted from under it.
    const conflict = !live && store ? await store.leases.acquire(sessionId) : undefined;
    if (conflict) throw inUse(sessionId, conflict);
    await this.close(sessionId);
    await store?.deleteSession(sessionId);
    if (!live) await store?.leases.release(sessionId).catch(() => undefined);
    const info = live?.info ?? (found ? sessionInfoFromRecord(found.session) : undefined);
    if (info) await this.hooks.onDelete?.(info);
  }

  /** The live session, loading it from disk (and starting its extensions) when needed. */
  async open(sessionId: string, cwd?: string): Promise<LiveSession> {
    // The store answers asynchronously: concurrent opens of one session share one load (one lease, one LiveSession).
    const opening = this.#opening.get(sessionId);
    if (opening) return opening;
    const loading = this.#open(sessionId, cwd).finally(() => this.#opening.delete(sessionId));
    this.#opening.set(sessionId, loading);
    return loading;
  }

  async #open(sessionId: string, cwd?: string): Promise<LiveSession> {
    const live = this.#live.get(sessionId);
    if (live && (await live.store.leases.holds(sessionId))) return live;
    // Another process took the session over while this one was not renewing (frozen, suspended):
    // what is in memory is stale, so it is dropped and the session loaded again, lease first.
    if (live) await this.#forgetTakenOver(live);
    const found = await this.#find(sessionId, cwd);
    if (!found) throw new AgentError('session_not_found', `Session "${sessionId}" not found`);
    await assertWorkspace(found.session);
    // One writer per session: two processes each appending turns would each miss the other's.
    const conflict = await found.store.leases.acquire(sessionId);
    if (conflict) throw inUse(sessionId, conflict);
    await recoverInterruptedReply(found.store, sessionId);
    return this.#attach(sessionInfoFromRecord(found.session), found.store, repairStoredMessages(await found.store.loadMessages(sessionId)));
  }

  async #forgetTakenOver(live: LiveSession): Promise<void> {
    const sessionId = live.info.sessionId;
    live.running?.controller.abort();
    this.#live.delete(sessionId);
    live.store.leases.forget(sessionId);
    await this.hooks.onClose(sessionId).catch(() => undefined);
  }

  async setTitle(live: LiveSession, title: string): Promise<void> {
    await live.store.updateSession(live.info.sessionId, { title });
    live.info = { ...live.info, title };
  }

  /** Resolves when every known store answers. */
  async ping(): Promise<void> {
    await Promise.all(this.#knownStores().map((store) => store.ping()));
  }

  liveSessions(): LiveSession[] {
    return [...this.#live.values()];
  }

  async #attach(stored: SessionInfo, store: SessionStorage, messages: ModelMessage[]): Promise<LiveSession> {
    const info = await withOptions(stored, store);
    const live: LiveSession = {
      info,
      store,
      messages,
      permissions: { rules: [] },
      tail: Promise.resolve(),
      running: undefined,
      // Deferred one tick so a protocol adapter answers session/new before any session event is sent.
      ready: new Promise<void>((resolveReady) => setImmediate(resolveReady)).then(() => {
        live.started = true;
        // The info as it is then: options set right after opening (ACP resume) are seen.
        return this.hooks.onStart(live.info).catch(() => undefined);
      }),
    };
    this.#live.set(info.sessionId, live);
    return live;
  }

  async #find(sessionId: string, cwd?: string): Promise<{ store: SessionStorage; session: StoredSession } | undefined> {
    const stores = cwd ? [this.stores.forProject(resolve(cwd)), ...this.#knownStores()] : this.#knownStores();
    for (const store of stores) {
      const session = await store.getSession(sessionId);
      if (session) return { store, session };
    }
    return undefined;
  }

  #knownStores(): SessionStorage[] {
    const stores = this.stores.all();
    const own = this.stores.forProject(process.cwd());
    return stores.includes(own) ? stores : [own, ...stores];
  }
}

async function withOptions(info: SessionInfo, store: SessionStorage): Promise<SessionInfo> {
  const stored = await store.settings.get(info.sessionId);
  const options: SessionOptions = {};
  if (typeof stored.model === 'string') options.model = stored.model;
  if (typeof stored.reasoningEffort === 'string') options.reasoningEffort = stored.reasoningEffort;
  if (Array.isArray(stored.additionalDirectories)) options.additionalDirectories = stored.additionalDirectories.filter((dir): dir is string => typeof dir === 'string');
  // The client's list of a later load or resume replaces the one of session/new (stored like it, unchecked JSON).
  const mcpServers = Array.isArray(stored.mcpServers) ? (stored.mcpServers as McpServerConfig[]) : undefined;
  return { ...info, ...(mcpServers ? { mcpServers } : {}), options };
}

/**
 * A session is served only where its working folder is: with a shared store, a replica without
 * the shared volume must refuse it (and leave its lease alone) rather than run tools elsewhere.
 */
async function assertWorkspace(session: StoredSession): Promise<void> {
  const found = await stat(session.cwd).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (found) return;
  throw new AgentError(
    'workspace_missing',
    `Session "${session.sessionId}" works in ${session.cwd}, which is not a folder on this machine; mount the shared workspace at the same path on every replica, or load the session where its folder is`,
  );
}

/** `session_in_use`: the session is open in another process, named with its pid and last sign of life. */
function inUse(sessionId: string, conflict: { pid: number; host?: string; idleMs: number }): AgentError {
  return new AgentError(
    'session_in_use',
    `Session "${sessionId}" is open in another plaited-agent process (pid ${conflict.pid}${conflict.host ? ` on ${conflict.host}` : ''}, active ${Math.round(conflict.idleMs / 1000)} s ago); close it there or stop that process, then retry`,
  );
}
