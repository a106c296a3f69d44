import { connectAcpHttp, initializeHttp, type AcpHttpClient } from '../adapters/acp/acp-http-client.js';
import type { Replica } from './start-replica.js';

/** How one attempt at a turn ended, as its client saw it. */
export type AttemptOutcome = 'acknowledged' | 'in_use' | 'replica_died' | 'unreachable';

export interface Attempt {
  /** `s<session>-t<turn>-a<attempt>`: the prompt is `turn <id>`. */
  id: string;
  session: number;
  turn: number;
  replica: number;
  outcome: AttemptOutcome;
  /** What the client saw when the attempt failed. */
  error?: string;
}

export interface TurnPlan {
  replicas: readonly Replica[];
  /** The shared workspace (every replica sees the same path). */
  cwd: string;
  sessions: number;
  turnsPerSession: number;
  clients: number;
  /** Client i's transport: `transports[i % transports.length]`. */
  transports: ReadonlyArray<'http' | 'websocket'>;
  /** Called after each acknowledged turn with the count so far. */
  onAcknowledged?: (count: number) => void;
}

export interface TurnRun {
  sessionIds: string[];
  attempts: Attempt[];
  count(outcome: AttemptOutcome): number;
}

/**
 * A turn that cannot find a replica within this many attempts fails the run. Generous: while a
 * stopping replica still holds a session, the others refuse it at the speed of a round trip.
 */
const MAX_ATTEMPTS = 300;

/**
 * One client's connections, one per replica, opened on first use and again after the replica
 * they reached went away (a restarted replica listens on the same URL).
 */
class ReplicaConnections {
  readonly #open = new Map<number, { life: number; opening: Promise<AcpHttpClient> }>();
  readonly #all = new Set<Promise<AcpHttpClient>>();

  constructor(private readonly transport: 'http' | 'websocket') {}

  /**
   * The connection to the replica in its current life. One begun in an earlier life (perhaps
   * refused while the replica was down) is not reused, nor closed: a turn may be running on it.
   */
  to(replica: Replica): Promise<AcpHttpClient> {
    const known = this.#open.get(replica.index);
    if (known?.life === replica.life) return known.opening;
    const opening = (async () => {
      const client = connectAcpHttp(replica.url, { transport: this.transport });
      void client.connection.closed.catch(() => undefined).finally(() => this.#forget(replica.index, opening));
      try {
        await initializeHttp(client);
      } catch (error) {
        client.close();
        throw error;
      }
      return client;
    })();
    opening.catch(() => this.#forget(replica.index, opening));
    this.#open.set(replica.index, { life: replica.life, opening });
    this.#all.add(opening);
    return opening;
  }

  closeAll(): void {
    for (const opening of this.#all) void opening.then((client) => client.close()).catch(() => undefined);
    this.#open.clear();
    this.#all.clear();
  }

  #forget(index: number, opening: Promise<AcpHttpClient>): void {
    this.#all.delete(opening);
    if (this.#open.get(index)?.opening === opening) this.#open.delete(index);
  }
}

/**
 * Drives `sessions × turnsPerSession` turns over the replicas as clients behind a round-robin
 * balancer would: every session is a sequence of turns (each sent once the previous one is
 * answered), each turn `session/resume` → `session/prompt` → `session/close` on the next replica
 * in turn; a turn refused with `session_in_use`, or lost with its replica, is tried again on the
 * next one. The close of one turn is not waited for before the next turn starts elsewhere.
 */
export async function runRoundRobinTurns(plan: TurnPlan): Promise<TurnRun> {
  const clients = Array.from({ length: plan.clients }, (_, i) => new ReplicaConnections(plan.transports[i % plan.transports.length]!));
  const attempts: Attempt[] = [];
  let acknowledged = 0;
  try {
    const sessionIds = await createSessions(plan, clients);
    await Promise.all(
      sessionIds.map((sessionId, session) =>
        runSession(plan, { sessionId, session, connections: clients[session % clients.length]! }, (attempt) => {
          attempts.push(attempt);
          if (attempt.outcome === 'acknowledged') plan.onAcknowledged?.(++acknowledged);
        }),
      ),
    );
    return { sessionIds, attempts, count: (outcome) => attempts.filter((attempt) => attempt.outcome === outcome).length };
  } finally {
    for (const client of clients) client.closeAll();
  }
}

async function createSessions(plan: TurnPlan, clients: ReplicaConnections[]): Promise<string[]> {
  const ids: string[] = [];
  for (let session = 0; session < plan.sessions; session++) {
    const replica = plan.replicas[session % plan.replicas.length]!;
    const client = await clients[session % clients.length]!.to(replica);
    const { sessionId } = await client.agent.request('session/new', { cwd: plan.cwd, mcpServers: [] });
    await client.agent.request('session/close', { sessionId });
    ids.push(sessionId);
  }
  return ids;
}

interface Lane {
  sessionId: string;
  session: number;
  connections: ReplicaConnections;
}

async function runSession(plan: TurnPlan, lane: Lane, record: (attempt: Attempt) => void): Promise<void> {
  const { replicas } = plan;
  let next = lane.session;
  // The previous turn's close, still on its way: a turn does not go to that replica before it is done.
  let closing: { replica: number; done: Promise<void> } | undefined;
  for (let turn = 0; turn < plan.turnsPerSession; turn++) {
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`turn ${turn} of session ${lane.session} found no replica in ${MAX_ATTEMPTS} attempts`);
      const replica = replicas[next++ % replicas.length]!;
      if (closing?.replica === replica.index) await closing.done;
      const id = `s${lane.session}-t${turn}-a${attempt}`;
      const { outcome, error } = await tryTurn(plan, lane, replica, id);
      record({ id, session: lane.session, turn, replica: replica.index, outcome, ...(error ? { error } : {}) });
      if (outcome === 'acknowledged') {
        closing = { replica: replica.index, done: closeQuietly(lane, replica) };
        break;
      }
      // Refused while the previous replica lets the session go: tried again once it has.
      if (outcome === 'in_use') await closing?.done;
    }
  }
  await closing?.done;
}

/**
 * One attempt. An answer from a replica is believed: `session_in_use` and `agent_draining` are
 * refusals to retry elsewhere, any other error fails the run. Only a replica stopped or killed meanwhile may
 * lose an attempt (its connection closes, or its graceful stop cancels the turn).
 */
async function tryTurn(plan: TurnPlan, lane: Lane, replica: Replica, id: string): Promise<{ outcome: AttemptOutcome; error?: string }> {
  const life = replica.life;
  const wasUp = replica.up;
  const ended = () => !wasUp || !replica.up || replica.life !== life;
  let client: AcpHttpClient;
  try {
    client = await lane.connections.to(replica);
  } catch (error) {
    if (!ended()) throw new Error(`replica ${replica.index} is up but refused a connection: ${(error as Error).message}`);
    return { outcome: 'unreachable', error: (error as Error).message };
  }
  try {
    await client.agent.request('session/resume', { sessionId: lane.sessionId, cwd: plan.cwd, mcpServers: [] });
    const { stopReason } = await client.agent.request('session/prompt', { sessionId: lane.sessionId, prompt: [{ type: 'text', text: `turn ${id}` }] });
    if (stopReason === 'end_turn') return { outcome: 'acknowledged' };
    // Cancelled by the replica's graceful stop.
    if (stopReason === 'cancelled' && ended()) return { outcome: 'replica_died', error: 'cancelled' };
    throw new Error(`turn ${id} on replica ${replica.index} stopped with ${stopReason}`);
  } catch (error) {
    const { code, data, message } = error as { code?: unknown; data?: { code?: unknown }; message?: string };
    if (data?.code === 'session_in_use') return { outcome: 'in_use' };
    // A replica stopping gracefully refuses new turns before it writes anything: try the next one.
    if (data?.code === 'agent_draining') return { outcome: 'unreachable', error: message ?? 'draining' };
    const answered = typeof code === 'number'; // a JSON-RPC error response: the replica answered
    if (ended() && (!answered || data?.code === 'agent_stopped')) return { outcome: 'replica_died', error: message ?? String(error) };
    throw new Error(`turn ${id} on replica ${replica.index} failed: ${message ?? String(error)} ${JSON.stringify(data ?? {})}`);
  }
}

async function closeQuietly(lane: Lane, replica: Replica): Promise<void> {
  // A replica that dies meanwhile lets go of its sessions by dying (its lease names a dead pid) or by its graceful stop.
  await lane.connections
    .to(replica)
    .then((client) => client.agent.request('session/close', { sessionId: lane.sessionId }))
    .catch(() => undefined);
}
