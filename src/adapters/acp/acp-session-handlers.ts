import type { AcpAgentSettings } from './acp-agent-settings.js';
import * as acp from '@agentclientprotocol/sdk';
import type { Agent, AgentCapabilities, SessionInfo, SessionManager, SessionOptions, SessionReplay } from '../../agent/agent.js';
import type { McpServerConfig } from '../../config/schema.js';
import type { AgentOutput, ContentPart } from '../../contracts/agent-output.js';
import type { Runtime } from '../../contracts/runtime.js';
import { LOCAL_PRINCIPAL, ownedSessions } from '../../agent/owned-sessions.js';
import { AgentError } from '../../agent/agent-error.js';
import { checkedCwd, checkedListCwd } from './acp-request-checks.js';
import { checkAdditionalDirectories } from './acp-additional-directories.js';
import { decodeListCursor, encodeListCursor } from './session-list-cursor.js';
import { toAcpRequestError } from './to-acp-request-error.js';
import { acpShapedSessions } from './acp-shaped-sessions.js';
import { MODES, sessionConfigOptions, setSessionConfigOption } from './acp-session-config-options.js';
import { authenticate, authMethods, authRequired, missingCredentials } from './acp-auth-methods.js';
import { acpSessionEnd } from './acp-session-end.js';
import { AcpProviders } from './acp-providers.js';
import type { PermissionRequestEvent } from './bridge-permission.js';

const LIST_PAGE_SIZE = 50;

/** A session this connection opened, with the controller and completion of each running turn. */
interface LiveSession {
  cwd: string;
  turns: Map<AbortController, Promise<unknown>>;
  /** Turns of another connection or replica this one follows since `session/load`: stopped with the session. */
  follows: Set<AbortController>;
}

/** Where a turn's events go: the version's translator turns them into its wire updates. */
export interface TurnSink {
  /** Every event but permission questions, the turn's end and errors. */
  update(event: AgentOutput): Promise<unknown>;
  /** A permission question; not awaited: the turn keeps streaming, so a steering prompt or cancel can supersede it. */
  ask(event: PermissionRequestEvent, signal: AbortSignal): void;
  /** An error event: v1 ends the request with it (throws); v2 reports it when the turn ends. */
  fail?(event: Extract<AgentOutput, { type: 'error' }>): void;
  /** The session once the turn is done (its title from the first prompt, its last activity). */
  finished(info: SessionInfo): Promise<unknown>;
}

export interface TurnOutcome {
  stopReason: string;
  error?: { code: string; message: string };
}

/** The request fields that open a session, in every version. */
export interface OpenSessionParams {
  sessionId: string;
  cwd: unknown;
  additionalDirectories?: string[] | null;
}

/**
 * The ACP session handlers of one connection, version-neutral: v1 (`serveAcp`) and the v2 draft
 * (`serveAcpV2`) translate their wire shapes to and from these. Sessions another principal owns
 * do not exist here; errors are ACP's (`RequestError`, the same class in both versions).
 */
export class AcpSessionHandlers {
  readonly owned: SessionManager;
  /** `session/close` and `session/delete`. */
  readonly end: ReturnType<typeof acpSessionEnd>;
  private readonly live = new Map<string, LiveSession>();
  /** Prompt requests being answered, by session, with their end: `cancel` and `stop` reach them from the start. */
  private readonly arriving = new Map<string, Map<AbortController, Promise<void>>>();
  /** Unstable `providers/*`: the client's routing of the model calls, for this connection's turns. */
  readonly providers: AcpProviders;
  /** `logout` on this connection: new sessions and prompts need `authenticate` again. */
  private loggedOut = false;

  constructor(
    private readonly agent: Agent,
    /** The face's typed settings (models, context window, the command layer), from the CLI or a program. */
    readonly settings: AcpAgentSettings,
    principal: string = LOCAL_PRINCIPAL,
    /** Told when a session stops on this connection (v2 forgets its terminals). */
    private readonly onStop: (sessionId: string) => void = () => undefined,
  ) {
    this.owned = acpShapedSessions(ownedSessions(agent.sessions, principal));
    this.providers = new AcpProviders(settings);
    this.end = acpSessionEnd({ owned: this.owned, requireSession: (id) => this.require(id), stopSession: (id) => this.stop(id) });
  }

  /** What `initialize` reports, before the version shapes it. */
  initialize(): { capabilities: AgentCapabilities; authMethods: acp.AuthMethod[] } {
    return { capabilities: this.agent.capabilities(), authMethods: this.authMethods() };
  }

  /** The configured login methods (none for a local model). */
  authMethods(): acp.AuthMethod[] {
    return authMethods(this.settings);
  }

  authenticate(methodId: string): void {
    authenticate(this.settings, methodId);
    this.loggedOut = false;
  }

  logout(): void {
    this.loggedOut = true;
  }

  /** New sessions need credentials: the spec's auth-required answer instead of a failure at the first prompt. */
  requireCredentials(): void {
    if (this.loggedOut || missingCredentials(this.settings)) throw authRequired(this.settings);
  }

  /** A prompt after `logout` needs `authenticate` again. */
  requireLogin(): void {
    if (this.loggedOut) throw authRequired(this.settings);
  }

  async require(sessionId: string, cwd?: string): Promise<SessionInfo> {
    const info = await this.owned.get(sessionId, cwd);
    if (!info) throw acp.RequestError.sessionNotFound(sessionId);
    return info;
  }

  /** The session's cwd when this connection has it open. */
  liveCwd(sessionId: string): string | undefined {
    return this.live.get(sessionId)?.cwd;
  }

  running(sessionId: string): boolean {
    return (this.live.get(sessionId)?.turns.size ?? 0) > 0;
  }

  configOptions(info: SessionInfo): acp.SessionConfigOption[] {
    return sessionConfigOptions(this.settings, info);
  }

  /** Events outside a turn (MCP server failures, slash commands, mode changes) for this connection's sessions. */
  subscribe(listener: (event: AgentOutput, cwd: string) => void): () => void {
    return this.agent.subscribe((event) => {
      const cwd = this.liveCwd(event.sessionId);
      if (cwd !== undefined) listener(event, cwd);
    });
  }

  async newSession(params: { cwd: unknown; additionalDirectories?: string[] | null }, mcpServers: () => McpServerConfig[]): Promise<SessionInfo> {
    const cwd = await checkedCwd(params.cwd);
    this.requireCredentials();
    const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, cwd);
    const info = await this.owned.create({
      cwd,
      mcpServers: mcpServers(),
      ...(additionalDirectories.length > 0 ? { options: { additionalDirectories } } : {}),
    });
    this.open(info);
    return info;
  }

  /**
   * `session/fork`: a new session with the source's history so far, its own cwd, MCP servers and
   * additional directories from the request. Refused while the source has a turn running or queued.
   */
  async fork(params: OpenSessionParams, mcpServers: () => McpServerConfig[]): Promise<SessionInfo> {
    const cwd = await checkedCwd(params.cwd);
    this.requireCredentials();
    // The fork's cwd is where a source in the same project is found (its store may not be open yet).
    await this.require(params.sessionId, cwd);
    const additionalDirectories = await checkAdditionalDirectories(params.additionalDirectories, cwd);
    if (this.running(params.sessionId)) {
      throw toAcpRequestError(
        new AgentError('session_busy', `Session "${params.sessionId}" has a turn running: wait for it to end (or cancel it with session/cancel), then fork`),
        params.sessionId,
      );
    }
    const info = await this.owned
      .fork(params.sessionId, { cwd, mcpServers: mcpServers(), options: { additionalDirectories } })
      .catch((error: unknown) => {
        throw toAcpRequestError(error, params.sessionId);
      });
    this.open(info);
    return info;
  }

  /**
   * Live again (its MCP servers reconnect), with nothing replayed; the request's directories, and
   * its MCP servers when it names any list, are the session's from now on.
   */
  async resume(params: OpenSessionParams, mcpServers?: () => McpServerConfig[]): Promise<SessionInfo> {
    const cwd = await checkedCwd(params.cwd);
    const found = await this.require(params.sessionId, cwd);
    if (found.cwd !== cwd) throw acp.RequestError.invalidParams({ cwd: params.cwd }, `cwd must be the session's cwd (${found.cwd})`);
    await this.withClientChoices(found, await checkAdditionalDirectories(params.additionalDirectories, found.cwd), mcpServers?.());
    const info = await this.owned.activate(found.sessionId, found.cwd).catch((error: unknown) => {
      throw toAcpRequestError(error, found.sessionId);
    });
    this.open(info);
    return info;
  }

  /** `session/load` before its replay: the session opened on this connection, with the request's directories and MCP servers. */
  async load(params: OpenSessionParams, mcpServers: () => McpServerConfig[]): Promise<SessionInfo> {
    const found = await this.require(params.sessionId, await checkedCwd(params.cwd));
    const info = await this.withClientChoices(found, await checkAdditionalDirectories(params.additionalDirectories, found.cwd), mcpServers());
    this.open(info);
    return info;
  }

  /** The stored history to replay. */
  history(info: SessionInfo): Promise<AgentOutput[]> {
    return this.owned.history(info.sessionId, info.cwd).catch((error: unknown) => {
      throw toAcpRequestError(error, info.sessionId);
    });
  }

  /**
   * The stored history to replay, and the running turn's later events when one runs (on another
   * connection, or another replica sharing the store), until it ends or the session stops here.
   */
  async replay(info: SessionInfo): Promise<SessionReplay> {
    const follow = new AbortController();
    const session = this.open(info);
    session.follows.add(follow);
    const replay: Promise<SessionReplay> = this.owned.replay
      ? this.owned.replay(info.sessionId, info.cwd, follow.signal)
      : this.owned.history(info.sessionId, info.cwd).then((history) => ({ history }));
    const answer = await replay.catch((error: unknown) => {
      session.follows.delete(follow);
      throw toAcpRequestError(error, info.sessionId);
    });
    if (!answer.live) session.follows.delete(follow);
    return answer.live ? { history: answer.history, live: untilDone(answer.live, () => session.follows.delete(follow)) } : answer;
  }

  async list(params: { cursor?: string | null; cwd?: string | null }): Promise<{ sessions: SessionInfo[]; nextCursor?: string }> {
    const start = decodeListCursor(params.cursor);
    const cwd = params.cwd != null ? await checkedListCwd(params.cwd) : null;
    // A folder that does not exist holds no session: an empty page, and nothing created for it.
    const all = cwd === undefined ? [] : await this.owned.list(cwd !== null ? { cwd } : {});
    return {
      sessions: all.slice(start, start + LIST_PAGE_SIZE),
      ...(start + LIST_PAGE_SIZE < all.length ? { nextCursor: encodeListCursor(start + LIST_PAGE_SIZE) } : {}),
    };
  }

  async setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<SessionInfo> {
    const info = await this.require(sessionId);
    return (await setSessionConfigOption(this.agent, this.settings, info, configId, value)).info;
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    const mode = MODES.find((candidate) => candidate.id === modeId);
    if (!mode) throw acp.RequestError.invalidParams({ modeId }, `unknown mode; available: ${MODES.map((m) => m.id).join(', ')}`);
    await this.require(sessionId);
    await this.owned.setMode(sessionId, mode.id);
  }

  /**
   * Queues a turn after the session's previous one on this connection (v2, whose prompt answers at
   * once; the core queues turns of one session anyway): `session/cancel` and close abort its
   * controller, and close waits for it.
   */
  queueTurn(info: SessionInfo, work: (controller: AbortController) => Promise<void>): Promise<void> {
    const session = this.open(info);
    const controller = new AbortController();
    const previous = [...session.turns.values()].at(-1) ?? Promise.resolve();
    const done = previous.then(() => work(controller)).finally(() => session.turns.delete(controller));
    session.turns.set(controller, done);
    return done;
  }

  /**
   * One turn through the core: events to `sink`, then the session's info; `cancelled` when aborted,
   * as the spec asks. `controller`: the turn's from `queueTurn` (v2); else (v1, whose request lasts
   * the turn) a new one, cancelled by `session/cancel` and waited for by close.
   */
  async runTurn(
    info: SessionInfo,
    prompt: ContentPart[],
    sink: TurnSink,
    options: { runtime?: Runtime; controller?: AbortController; messageId?: string; cancelled?: AbortSignal } = {},
  ): Promise<TurnOutcome> {
    const controller = options.controller ?? new AbortController();
    const untrack = options.controller ? undefined : this.track(info, controller);
    // A cancel that came while the request was still on its way here (see `arrive`).
    if (options.cancelled) followAbort(options.cancelled, controller);
    const { signal } = controller;
    const outcome: TurnOutcome = { stopReason: 'end_turn' };
    try {
      const input = { sessionId: info.sessionId, prompt, ...(options.messageId ? { messageId: options.messageId } : {}) };
      const { stepModel } = this.providers;
      const events = this.agent.process(input, options.runtime ? { signal, runtime: options.runtime, stepModel } : { signal, stepModel });
      for await (const event of events) {
        if (event.type === 'permission-request') sink.ask(event, signal);
        else if (event.type === 'turn-end') outcome.stopReason = event.stopReason;
        else if (event.type === 'error') {
          sink.fail?.(event);
          outcome.stopReason = 'error';
          outcome.error = event.error;
        } else await sink.update(event);
      }
      // A store already closed (the agent stopping right after the turn) costs only the info update.
      const after = await this.owned.get(info.sessionId).catch(() => undefined);
      if (after) await sink.finished(after);
    } finally {
      untrack?.();
    }
    if (signal.aborted) outcome.stopReason = 'cancelled';
    return outcome;
  }

  /**
   * A prompt request as it arrives, before any await: a `session/cancel` right behind it (an
   * editor's stop pressed at once) comes while the request still awaits the session, before its
   * turn is registered, and was lost, so the turn ran on. Its signal goes to the turn; `settle`
   * once the turn is registered or the request ends.
   */
  arrive(sessionId: string): { signal: AbortSignal; settle(): void } {
    const controller = new AbortController();
    let ended!: () => void;
    const arriving = this.arriving.get(sessionId) ?? new Map<AbortController, Promise<void>>();
    this.arriving.set(sessionId, arriving.set(controller, new Promise<void>((resolve) => (ended = resolve))));
    return {
      signal: controller.signal,
      settle: () => {
        arriving.delete(controller);
        if (arriving.size === 0 && this.arriving.get(sessionId) === arriving) this.arriving.delete(sessionId);
        ended();
      },
    };
  }

  cancel(sessionId: string): void {
    for (const controller of this.arriving.get(sessionId)?.keys() ?? []) controller.abort();
    for (const controller of this.live.get(sessionId)?.turns.keys() ?? []) controller.abort();
  }

  /** Stops following other turns of the session (it closed here, or the connection did). */
  private unfollow(sessionId: string): void {
    for (const follow of this.live.get(sessionId)?.follows ?? []) follow.abort();
  }

  /** session/close and session/delete: cancel the session's turns and wait until they ended, so no update follows. */
  async stop(sessionId: string): Promise<void> {
    this.unfollow(sessionId);
    // A prompt still on its way to its turn is cancelled too, and answered before the close is.
    const arriving = [...(this.arriving.get(sessionId) ?? new Map<AbortController, Promise<void>>())];
    for (const [controller] of arriving) controller.abort();
    const session = this.live.get(sessionId);
    this.live.delete(sessionId);
    forgetOpen(this.agent, sessionId, this);
    this.onStop(sessionId);
    for (const controller of session?.turns.keys() ?? []) controller.abort();
    await Promise.allSettled([...arriving.map(([, ended]) => ended), ...(session?.turns.values() ?? [])]);
  }

  /**
   * The connection closed: every running turn stops, and a session no other connection of this
   * process has open is let go once idle (its lease released), so a client that reconnects through
   * a balancer to another replica can go on with it there.
   */
  closeAll(): void {
    for (const [sessionId, session] of this.live) {
      this.cancel(sessionId);
      this.unfollow(sessionId);
      if (openElsewhere(this.agent, sessionId, this)) continue;
      void Promise.allSettled(session.turns.values())
        .then(() => (openElsewhere(this.agent, sessionId, this) ? undefined : this.owned.close(sessionId, { ifIdle: true })))
        .catch(() => undefined);
    }
    for (const sessionId of this.live.keys()) forgetOpen(this.agent, sessionId, this);
  }

  /** Registers a running turn until the returned function is called. */
  private track(info: SessionInfo, controller: AbortController): () => void {
    const session = this.open(info);
    let finished!: () => void;
    session.turns.set(controller, new Promise<void>((resolve) => (finished = resolve)));
    return () => {
      session.turns.delete(controller);
      finished();
    };
  }

  private open(info: SessionInfo): LiveSession {
    const session = this.live.get(info.sessionId) ?? { cwd: info.cwd, turns: new Map<AbortController, Promise<unknown>>(), follows: new Set<AbortController>() };
    this.live.set(info.sessionId, session);
    rememberOpen(this.agent, info.sessionId, this);
    return session;
  }

  /**
   * Stores the session's additional roots and the client's MCP servers (`undefined`: the request
   * named none) when they changed; an unchanged load is not activity. A session already live here
   * (open on another connection) swaps its servers for these once its running turn has ended.
   */
  private async withClientChoices(info: SessionInfo, additionalDirectories: string[], mcpServers: McpServerConfig[] | undefined): Promise<SessionInfo> {
    const changes: SessionOptions = {};
    if (JSON.stringify(info.options?.additionalDirectories ?? []) !== JSON.stringify(additionalDirectories)) changes.additionalDirectories = additionalDirectories;
    if (mcpServers && JSON.stringify(info.mcpServers) !== JSON.stringify(mcpServers)) changes.mcpServers = mcpServers;
    return Object.keys(changes).length === 0 ? info : this.owned.setOptions(info.sessionId, changes);
  }
}

/** Aborts `controller` when `signal` is (or already was) aborted. */
function followAbort(signal: AbortSignal, controller: AbortController): void {
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort(), { once: true });
}

/** The batches of `live`, then `done` (however the reader stops). */
async function* untilDone<T>(live: AsyncIterable<T>, done: () => void): AsyncGenerator<T> {
  try {
    yield* live;
  } finally {
    done();
  }
}

/** Which connections (their handlers) of this process have each session open, per agent. */
const openSessions = new WeakMap<Agent, Map<string, Set<AcpSessionHandlers>>>();

function rememberOpen(agent: Agent, sessionId: string, handlers: AcpSessionHandlers): void {
  let byId = openSessions.get(agent);
  if (!byId) openSessions.set(agent, (byId = new Map()));
  const holders = byId.get(sessionId) ?? new Set<AcpSessionHandlers>();
  byId.set(sessionId, holders.add(handlers));
}

function forgetOpen(agent: Agent, sessionId: string, handlers: AcpSessionHandlers): void {
  const byId = openSessions.get(agent);
  const holders = byId?.get(sessionId);
  holders?.delete(handlers);
  if (holders?.size === 0) byId!.delete(sessionId);
}

function openElsewhere(agent: Agent, sessionId: string, handlers: AcpSessionHandlers): boolean {
  return [...(openSessions.get(agent)?.get(sessionId) ?? [])].some((other) => other !== handlers);
}
