import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_MARK } from '../../src/agent/recover-interrupted-reply.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { HELD_FILLER, replyTo, startReplica, stopReplicas, type Replica } from '../helpers/start-replica.js';
import { runRoundRobinTurns, type Attempt, type TurnRun } from '../helpers/round-robin-turns.js';
import { readStoredSessions, storedDraftText, type StoredSessionRecord } from '../helpers/read-stored-sessions.js';
import { waitForAsync } from '../helpers/wait-for.js';

const SESSIONS = 20;
const TURNS_PER_SESSION = 50;
/** Clients 0, 2, 4 over WebSocket, 1 and 3 over streamable HTTP (one connection per replica each). */
const CLIENTS = 5;
const TOTAL = SESSIONS * TURNS_PER_SESSION;

let cluster: PostgresCluster;
let store: string;
const replicas: Replica[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await cluster.createDatabase();
  for (let index = 0; index < 3; index++) replicas.push(await startReplica(index, store));
}, 120_000);
afterAll(async () => {
  await stopReplicas(replicas);
  await cluster?.stop();
}, 60_000);

/** Resolves when `count` turns have been acknowledged. */
function progress(): { acknowledged(count: number): void; reached(count: number): Promise<void> } {
  let done = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  return {
    acknowledged(count) {
      done = count;
      for (const waiter of waiting.filter((entry) => entry.count <= done)) waiter.resolve();
    },
    reached: (count) => (done >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }))),
  };
}


/**
 * Two restarts while the turns run: a third of the way in, a plain stop (SIGTERM) and start of
 * replica 0; two thirds in, replica 1 killed (SIGKILL) while it streams a reply, and started.
 * Returns the held turn's id and how many chat requests each restarted replica had served before.
 */
async function restartTwice(turns: ReturnType<typeof progress>): Promise<{ heldId: string; servedBefore: number[] }> {
  const servedBefore: number[] = [];
  await turns.reached(Math.floor(TOTAL / 3));
  await replicas[0]!.stop();
  servedBefore[0] = replicas[0]!.model.requests.length;
  await replicas[0]!.start();

  await turns.reached(Math.floor((2 * TOTAL) / 3));
  const heldId = await replicas[1]!.holdNextTurn();
  await waitForAsync(async () => (await storedDraftText(store)).includes(`${replyTo(heldId)} w0`), 20_000, 'the held reply streaming into PostgreSQL');
  await replicas[1]!.kill();
  servedBefore[1] = replicas[1]!.model.requests.length;
  await replicas[1]!.start();
  return { heldId, servedBefore };
}

interface StoredTurn {
  id: string;
  epoch: number | null;
  answer?: { text: string; epoch: number | null };
}

/** The session's messages as turns: each user message (`turn <id>`) and the one answer after it, if any. */
function storedTurns(record: StoredSessionRecord): StoredTurn[] {
  const turns: StoredTurn[] = [];
  for (const message of record.messages) {
    if (message.role === 'user') {
      const id = /^turn (s\d+-t\d+-a\d+)$/.exec(message.text)?.[1];
      if (!id) throw new Error(`a user message nobody sent: ${JSON.stringify(message.text)}`);
      turns.push({ id, epoch: message.epoch });
    } else {
      const last = turns[turns.length - 1];
      if (message.role !== 'assistant' || !last || last.answer) throw new Error(`an unexpected ${message.role} message at seq ${message.seq}: ${JSON.stringify(message.text)}`);
      last.answer = { text: message.text, epoch: message.epoch };
    }
  }
  return turns;
}

function expectOneWriterAtATime(record: StoredSessionRecord, turns: StoredTurn[]): void {
  const epochs = [...record.messages, ...record.events].map((row) => row.epoch);
  expect(epochs.every((epoch) => typeof epoch === 'number'), 'every message and event written under a lease').toBe(true);
  for (const rows of [record.messages, record.events]) {
    const along = rows.map((row) => row.epoch!);
    expect(along, 'lease epochs never go back along the record').toEqual([...along].sort((a, b) => a - b));
  }
  // A turn is one writer's from its question to its answer.
  for (const turn of turns) if (turn.answer && turn.answer.epoch !== turn.epoch) expect(turn.answer.text.endsWith(INTERRUPTED_MARK), `turn ${turn.id} answered by another writer`).toBe(true);
  expect(Math.max(...epochs.map(Number))).toBeLessThanOrEqual(record.leaseEpoch);
  // What each writer wrote lies in its own stretch of time: no two stretches overlap.
  const spans = new Map<number, { first: string; last: string }>();
  for (const event of record.events) {
    const span = spans.get(event.epoch!);
    spans.set(event.epoch!, span ? { first: span.first, last: event.createdAt } : { first: event.createdAt, last: event.createdAt });
  }
  const ordered = [...spans.entries()].sort(([a], [b]) => a - b).map(([, span]) => span);
  for (let i = 1; i < ordered.length; i++) expect(ordered[i - 1]!.last <= ordered[i]!.first).toBe(true);
}

function expectSessionOnRecord(session: number, record: StoredSessionRecord, attempts: Attempt[]): void {
  const turns = storedTurns(record);
  const sent = new Map(attempts.filter((attempt) => attempt.session === session).map((attempt) => [attempt.id, attempt]));
  const ids = turns.map((turn) => turn.id);
  expect(new Set(ids).size, `no message twice in session ${session}`).toBe(ids.length);
  for (const turn of turns) {
    const attempt = sent.get(turn.id);
    expect(attempt, `stored turn ${turn.id} was sent to this session`).toBeDefined();
    if (attempt!.outcome === 'acknowledged') {
      expect(turn.answer?.text).toBe(replyTo(turn.id));
      expect(turn.answer?.epoch).toBe(turn.epoch);
    } else if (turn.answer) {
      // A turn lost with its replica: what it streamed is on record (interrupted), or all of it.
      const streamed = turn.answer.text.replace(`\n\n${INTERRUPTED_MARK}`, '').trimEnd();
      expect(`${replyTo(turn.id)} ${HELD_FILLER}`.startsWith(streamed), `turn ${turn.id} (${attempt!.outcome}) stored ${JSON.stringify(turn.answer.text.slice(0, 120))}`).toBe(true);
    }
  }
  const acknowledged = [...sent.values()].filter((attempt) => attempt.outcome === 'acknowledged');
  expect(acknowledged.map((attempt) => attempt.turn)).toEqual(Array.from({ length: TURNS_PER_SESSION }, (_, turn) => turn));
  expect(turns.filter((turn) => sent.get(turn.id)!.outcome === 'acknowledged').map((turn) => turn.id)).toEqual(acknowledged.map((attempt) => attempt.id));
  expectOneWriterAtATime(record, turns);
}

describe('1,000 turns across three CLI replicas on one PostgreSQL store, two replicas restarted meanwhile', () => {
  it('loses no turn, duplicates none, and never lets two replicas write one session at once', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-shared-workspace-'));
    mkdirSync(join(cwd, '.plaited'));
    const turns = progress();
    const started = Date.now();
    const restarts = restartTwice(turns);
    restarts.catch(() => undefined); // awaited below, after the turns
    const run: TurnRun = await runRoundRobinTurns({
      replicas,
      cwd,
      sessions: SESSIONS,
      turnsPerSession: TURNS_PER_SESSION,
      clients: CLIENTS,
      transports: ['websocket', 'http'], // streamable HTTP: one connection per replica
      onAcknowledged: (count) => turns.acknowledged(count),
    });
    const { heldId, servedBefore } = await restarts;
    process.stderr.write(
      `${TOTAL} turns in ${Math.round((Date.now() - started) / 1000)} s: ${run.attempts.length} attempts; refused session_in_use ${run.count('in_use')}, lost with their replica ${run.count('replica_died')}, replica unreachable ${run.count('unreachable')}\n`,
    );

    expect(run.count('acknowledged')).toBe(TOTAL);
    expect(run.attempts.find((attempt) => attempt.id === heldId)?.outcome).toBe('replica_died');
    // Both restarted replicas served turns again after their restart.
    expect(replicas[0]!.model.requests.length).toBeGreaterThan(servedBefore[0]!);
    expect(replicas[1]!.model.requests.length).toBeGreaterThan(servedBefore[1]!);

    const records = await readStoredSessions(store, run.sessionIds);
    run.sessionIds.forEach((sessionId, session) => expectSessionOnRecord(session, records.get(sessionId)!, run.attempts));
    // The killed replica's streamed text is on record, marked interrupted.
    const held = storedTurns(records.get(run.sessionIds[Number(/^s(\d+)/.exec(heldId)![1])]!)!).find((turn) => turn.id === heldId);
    expect(held?.answer?.text.startsWith(`${replyTo(heldId)} w0`)).toBe(true);
    expect(held?.answer?.text.endsWith(INTERRUPTED_MARK)).toBe(true);
  }, 300_000);
});
