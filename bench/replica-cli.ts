import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../bin/plaited-agent.js');
const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
/** The bearer token every benchmark replica accepts. */
export const BENCH_TOKEN = 'bench-token-0123456789abcdef';

export interface ReplicaCli {
  /** `http://127.0.0.1:PORT/acp` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The built CLI serving ACP over HTTP/WebSocket on a free loopback port, on the instant model,
 * with the SQLite default (no `store`) or a PostgreSQL store; in a temp folder of its own.
 */
export async function startReplicaCli(options: { modelUrl: string; store?: string; countQueriesTo?: string }): Promise<ReplicaCli> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-replica-'));
  mkdirSync(join(cwd, '.plaited'));
  // `countQueriesTo`: the folder where the replica's processes write how many PostgreSQL queries they sent, at their exit.
  const counting = options.countQueriesTo ? ['--import', pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), 'pg-query-count.js')).href] : [];
  const args = [...counting, CLI, '--model', 'openai-compatible:instant', '--base-url', options.modelUrl, '--transport', 'http', '--port', '0'];
  if (options.store) args.push('--store', options.store);
  const env = { ...process.env, PLAITED_AUTH_TOKEN: BENCH_TOKEN, ...(options.countQueriesTo ? { PLAITED_BENCH_PG_COUNT: options.countQueriesTo } : {}) };
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((found, fail) => {
    const timer = setTimeout(() => fail(new Error(`the CLI did not report its URL within 60 s: ${stderr}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = URL_LINE.exec(stderr);
      if (match) {
        clearTimeout(timer);
        found(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the CLI exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    stop: () =>
      new Promise<void>((done) => {
        const finish = () => {
          rmSync(cwd, { recursive: true, force: true });
          done();
        };
        if (child.exitCode !== null) return finish();
        child.once('exit', finish);
        child.kill('SIGTERM');
      }),
  };
}
