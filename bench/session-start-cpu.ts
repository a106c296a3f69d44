import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withoutSecrets } from './cold-start.js';
import { median } from './stats.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../bin/plaited-agent.js');
/** Linux counts CPU time in clock ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

/**
 * CPU (user + system) one CLI spends from spawn through `initialize`, `session/new` and a clean
 * exit on stdin's end: what every editor session, and every end-to-end test, pays before its first
 * prompt. Read as this process's waited-for children's time (/proc/self/stat), one start at a time.
 * The model is never called (an unreachable base URL); the median over `runs`.
 */
export async function benchSessionStartCpu(runs = 10, cli = CLI): Promise<Record<string, number>> {
  const cwd = mkdtempSync(`${tmpdir()}/plaited-bench-session-`);
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < runs; i++) {
    const before = childrenCpuMs();
    const started = performance.now();
    await oneSession(cwd, cli);
    wall.push(performance.now() - started);
    cpu.push(childrenCpuMs() - before);
  }
  return { sessionStartCpuMedianMs: median(cpu), sessionStartCpuMinMs: Math.min(...cpu), sessionStartWallMedianMs: median(wall) };
}

function childrenCpuMs(): number {
  // Fields after the command name: cutime and cstime are the 14th and 15th (1-based, from the state).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

function oneSession(cwd: string, cli: string): Promise<void> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [cli, '--model', 'openai-compatible:bench', '--base-url', 'http://127.0.0.1:9/v1'], {
      cwd,
      env: withoutSecrets(),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const { id } = JSON.parse(line) as { id?: number };
        if (id === 1) send({ id: 2, method: 'session/new', params: { cwd, mcpServers: [] } });
        if (id === 2) child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('exit', () => done());
    send({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  });
}
