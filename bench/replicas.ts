/**
 * Replicas: turns per second and p50/p99 per turn with the instant model, ACP over WebSocket,
 * for one replica on SQLite, one on PostgreSQL, and three on PostgreSQL behind nginx (the
 * reference configuration, deploy/nginx/plaited-agent.conf), in one run; and the latency the
 * PostgreSQL store adds to a turn (one turn at a time, alternating between a SQLite and a
 * PostgreSQL replica, so no queueing and the machine's load alike on both), with the queries that
 * replica sent a turn (each a round trip to the database). Each client opens one
 * session and sends its turns one after another; a session stays on the replica that took the
 * client's connection (nginx spreads the connections round robin).
 */
import * as acp from '@agentclientprotocol/sdk';
import { createWebSocketStream, type WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { createJiti } from 'jiti';
import { instantOpenAIServer } from './instant-openai-server.js';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { BENCH_TOKEN, startReplicaCli, type ReplicaCli } from './replica-cli.js';
import { percentile, round } from './stats.js';

export interface TurnLoad {
  clients: number;
  turnsPerClient: number;
  /** Unmeasured turns per client first (the first turn of a process loads its modules). */
  warmup: number;
}

export interface TurnTimes {
  turns_per_s: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

/** Turns one after another, alternating between the SQLite and the PostgreSQL replica (the machine's load hits both alike). */
const SEQUENTIAL = { turns: 150, warmup: 3 };
const CONCURRENT: TurnLoad = { clients: 9, turnsPerClient: 25, warmup: 2 };

async function connect(url: string): Promise<acp.ClientConnection> {
  const stream = createWebSocketStream(url.replace(/^http/, 'ws'), {
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    headers: { authorization: `Bearer ${BENCH_TOKEN}` },
  });
  const connection = acp.client({ name: 'bench-replicas' }).onNotification('session/update', () => undefined).connect(stream);
  await connection.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  return connection;
}

/** `load.clients` clients on `urls` (client i on urls[i % n]), each its own session, all at once; times every measured turn. */
export async function measureTurns(urls: readonly string[], load: TurnLoad): Promise<TurnTimes> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-workspace-'));
  mkdirSync(join(cwd, '.plaited'));
  const connections = await Promise.all(Array.from({ length: load.clients }, (_, i) => connect(urls[i % urls.length]!)));
  try {
    const sessions = await Promise.all(connections.map(async (connection) => (await connection.agent.request('session/new', { cwd, mcpServers: [] })).sessionId));
    const turn = (i: number, text: string) => connections[i]!.agent.request('session/prompt', { sessionId: sessions[i]!, prompt: [{ type: 'text', text }] });
    await Promise.all(connections.map(async (_, i) => {
      for (let n = 0; n < load.warmup; n++) await turn(i, `warm-up ${n}`);
    }));
    const times: number[] = [];
    const started = performance.now();
    await Promise.all(connections.map(async (_, i) => {
      for (let n = 0; n < load.turnsPerClient; n++) {
        const sent = performance.now();
        const { stopReason } = await turn(i, `question ${n}`);
        if (stopReason !== 'end_turn') throw new Error(`a turn ended with ${stopReason}`);
        times.push(performance.now() - sent);
      }
    }));
    return summary(times, performance.now() - started);
  } finally {
    for (const connection of connections) connection.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

function prefixed(prefix: string, times: TurnTimes): Record<string, number> {
  return Object.fromEntries(Object.entries(times).map(([key, value]) => [`${prefix}_${key}`, value]));
}

function summary(times: readonly number[], elapsedMs: number): TurnTimes {
  return {
    turns_per_s: round((times.length / elapsedMs) * 1000, 1),
    p50_ms: percentile(times, 50),
    p99_ms: percentile(times, 99),
    mean_ms: round(times.reduce((sum, time) => sum + time, 0) / times.length, 1),
  };
}

/** One client on each of two replicas, one turn at a time, alternating: each replica's times (its turns per second as if alone). */
async function measureAlternating(urls: readonly [string, string]): Promise<[TurnTimes, TurnTimes]> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-workspace-'));
  mkdirSync(join(cwd, '.plaited'));
  const connections = await Promise.all(urls.map((url) => connect(url)));
  try {
    const sessions = await Promise.all(connections.map(async (connection) => (await connection.agent.request('session/new', { cwd, mcpServers: [] })).sessionId));
    const times: [number[], number[]] = [[], []];
    for (let n = 0; n < SEQUENTIAL.warmup + SEQUENTIAL.turns; n++) {
      for (const side of [0, 1] as const) {
        const sent = performance.now();
        await connections[side]!.agent.request('session/prompt', { sessionId: sessions[side]!, prompt: [{ type: 'text', text: `question ${n}` }] });
        if (n >= SEQUENTIAL.warmup) times[side].push(performance.now() - sent);
      }
    }
    const own = (side: 0 | 1) => summary(times[side], times[side].reduce((sum, time) => sum + time, 0));
    return [own(0), own(1)];
  } finally {
    for (const connection of connections) connection.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

export async function benchReplicas(): Promise<Record<string, number>> {
  const model = await instantOpenAIServer();
  let cluster: PostgresCluster | undefined;
  try {
    cluster = await startPostgresCluster();
    const queryCount = mkdtempSync(join(tmpdir(), 'plaited-bench-pg-count-'));
    const sqliteReplica = await startReplicaCli({ modelUrl: model.url });
    const postgresReplica = await startReplicaCli({ modelUrl: model.url, store: await cluster.createDatabase(), countQueriesTo: queryCount });
    let sequential: [TurnTimes, TurnTimes];
    let concurrent: [TurnTimes, TurnTimes];
    try {
      sequential = await measureAlternating([sqliteReplica.url, postgresReplica.url]);
      concurrent = [await measureTurns([sqliteReplica.url], CONCURRENT), await measureTurns([postgresReplica.url], CONCURRENT)];
    } finally {
      await sqliteReplica.stop();
      await postgresReplica.stop();
    }
    // Every turn the PostgreSQL replica ran (its sessions' creation included, ten of them).
    const postgresTurns = SEQUENTIAL.warmup + SEQUENTIAL.turns + CONCURRENT.clients * (CONCURRENT.warmup + CONCURRENT.turnsPerClient);
    const behindNginx = await threeBehindNginx(model.url, await cluster.createDatabase());
    const [sqlite, postgres] = concurrent;
    return {
      ...prefixed('sqlite_1client', sequential[0]),
      ...prefixed('postgres_1client', sequential[1]),
      postgres_added_ms_per_turn_p50: round(sequential[1].p50_ms - sequential[0].p50_ms, 1),
      postgres_added_ms_per_turn_mean: round(sequential[1].mean_ms - sequential[0].mean_ms, 1),
      postgres_queries_per_turn: round(readdirSync(queryCount).reduce((sum, pid) => sum + Number(readFileSync(join(queryCount, pid), 'utf8')), 0) / postgresTurns, 1),
      clients_concurrent: CONCURRENT.clients,
      ...prefixed('sqlite_1replica', sqlite),
      ...prefixed('postgres_1replica', postgres),
      ...prefixed('postgres_3replicas_nginx', behindNginx),
      throughput_postgres_vs_sqlite: round(postgres.turns_per_s / sqlite.turns_per_s, 2),
      throughput_3replicas_nginx_vs_1_postgres: round(behindNginx.turns_per_s / postgres.turns_per_s, 2),
      throughput_3replicas_nginx_vs_1_sqlite: round(behindNginx.turns_per_s / sqlite.turns_per_s, 2),
    };
  } finally {
    await cluster?.stop();
    await model.close();
  }
}

/** The repository (this file runs from dist/bench/). */
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type NginxRunner = { startNginxBalancer(replicaPorts: readonly number[]): Promise<{ origin: string; stop(): Promise<void> }> };

/**
 * The tests' runner of the reference nginx configuration (test/helpers/nginx-balancer.ts), loaded
 * from its source with jiti as the contract suite loads its fixtures: one runner for both, found
 * where it is whether this file runs built or not.
 */
async function nginxRunner(): Promise<NginxRunner> {
  return createJiti(import.meta.url).import<NginxRunner>(join(REPO, 'test/helpers/nginx-balancer.ts'));
}

/**
 * Three replicas on one database behind nginx; the concurrent load through nginx's one address.
 * Over WebSocket a connection stays on the replica nginx gave it, so the replicas need no route
 * name here (streamable HTTP would: the reference file routes by the connection id's prefix).
 */
async function threeBehindNginx(modelUrl: string, store: string): Promise<TurnTimes> {
  const replicas: ReplicaCli[] = [];
  try {
    for (let i = 0; i < 3; i++) replicas.push(await startReplicaCli({ modelUrl, store }));
    const nginx = await (await nginxRunner()).startNginxBalancer(replicas.map((replica) => replica.port));
    try {
      return await measureTurns([`${nginx.origin}/acp`], CONCURRENT);
    } finally {
      await nginx.stop();
    }
  } finally {
    for (const replica of replicas) await replica.stop();
  }
}
