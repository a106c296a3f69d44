import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A throwaway PostgreSQL cluster on loopback: `initdb` in a temp folder, then `postgres` until `stop`. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/` + a database name. */
  url(database?: string): string;
  /** A fresh, empty database; its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/** Debian's PostgreSQL (`apt-get install postgresql`, as .ci/run does). Throws, never skips, when it is missing. */
export function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = versions.map((version) => join(root, version, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!bin) throw new Error(`PostgreSQL server binaries not found under ${root}/*/bin: install them (apt-get install postgresql) to run the store contract suite`);
  return bin;
}

/**
 * The server refuses to run as root: as root, its commands run as the `postgres` user, through
 * setpriv, which execs (no forking wrapper), so the child we signal is postgres itself.
 */
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['setpriv', ['--reuid', 'postgres', '--regid', 'postgres', '--init-groups', '--reset-env', command, ...args]];
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'plaited-pg-'));
  if (process.getuid?.() === 0) {
    const user = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(user.stdout), Number(group.stdout));
  }
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const [initCommand, initArgs] = asServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr || init.error?.message}`);
  const port = await freePort();
  const [command, args] = asServerUser(join(bin, 'postgres'), ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', dir, '-F', '-c', 'max_connections=200']);
  const server = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr!.on('data', (chunk: Buffer) => (log += chunk));
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  await untilAccepting(url(), server, () => log);
  let databases = 0;
  return {
    url,
    async createDatabase() {
      const name = `contract_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return url(name);
    },
    async stop() {
      await stopServer(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function untilAccepting(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited (${server.exitCode}): ${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 60 s: ${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('exit', () => resolve());
    // SIGINT: PostgreSQL's "fast" shutdown.
    server.kill('SIGINT');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
