/**
 * Memory over a long session: the built CLI over ACP stdio, one session, 1,000 plain turns
 * against an instant OpenAI-compatible model (a ~350-character answer each, like the report's
 * 369 KB history). RSS of the agent process is sampled from /proc after the warm-up turn and
 * at checkpoints; a bounded agent's RSS flattens once the heap has grown to its working size.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { instantOpenAIServer } from './instant-openai-server.js';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../bin/plaited-agent.js');
const ANSWER = 'Here is a plain answer of about three hundred and fifty characters, so that a thousand turns of history weigh what the report measured. '.repeat(2).trim();

export async function benchMemory(turns = 1_000): Promise<Record<string, number>> {
  const model = await instantOpenAIServer(ANSWER);
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-memory-'));
  mkdirSync(join(cwd, '.plaited'));
  const child = spawn(process.execPath, [CLI, '--model', 'openai-compatible:instant', '--base-url', model.url], {
    cwd,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  try {
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
    const connection = acp.client({ name: 'bench' }).onNotification('session/update', () => undefined).connect(stream);
    await connection.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.agent.request('session/new', { cwd, mcpServers: [] });
    const samples: Record<string, number> = {};
    const started = performance.now();
    for (let turn = 1; turn <= turns; turn++) {
      await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `question number ${turn}` }] });
      if (turn === 1 || turn === 100 || turn === 250 || turn === 500 || turn % 1_000 === 0 || turn === turns) samples[`rss_after_${turn}_turns_mb`] = Math.round(rss() * 10) / 10;
    }
    const elapsed = performance.now() - started;
    connection.close();
    return {
      turns,
      ...samples,
      rss_growth_1_to_last_mb: Math.round((samples[`rss_after_${turns}_turns_mb`]! - samples.rss_after_1_turns_mb!) * 10) / 10,
      state_db_kb: Math.round(statSync(join(cwd, '.plaited/state.db')).size / 1024 + walSize(cwd)),
      turn_mean_ms: Math.round((elapsed / turns) * 100) / 100,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    await model.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

function walSize(cwd: string): number {
  try {
    return statSync(join(cwd, '.plaited/state.db-wal')).size / 1024;
  } catch {
    return 0;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const turns = Number(process.argv[2] ?? 1_000);
  benchMemory(turns).then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
