import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sandboxSchema } from '../src/config/schema.js';
import { checkSandboxAvailability } from '../src/adapters/sandbox/sandbox-availability.js';
import { createSandboxPolicy } from '../src/adapters/sandbox/sandbox-policy.js';
import { resetSandboxRuntime } from '../src/adapters/sandbox/sandbox-runtime-host.js';
import { createSandboxedRuntime } from '../src/adapters/sandbox/sandboxed-runtime.js';
import { createLocalRuntime } from '../src/tools/local-runtime.js';
import type { Runtime } from '../src/contracts/runtime.js';
import { median, percentile, round } from './stats.js';

const RUNS = 20;

/**
 * What the sandbox adds to one bash call: `true` run plainly (local runtime,
 * `bash -c`) against the same through the per-command sandbox (bubblewrap, the
 * proxy bridges, the seccomp helper, limits), median and p90 of 20 after one
 * warm-up each. The first sandboxed call also starts the proxies, reported apart.
 */
export async function benchSandbox(): Promise<Record<string, number>> {
  const availability = await checkSandboxAvailability();
  if (!availability.available) throw new Error(`sandbox unavailable: ${availability.reason}. Fix: ${availability.fix}`);
  const root = mkdtempSync(join(tmpdir(), 'plaited-bench-sandbox-'));
  mkdirSync(join(root, 'output'));
  try {
    const plain = createLocalRuntime(root);
    const policy = createSandboxPolicy({ config: sandboxSchema.parse({ commands: true }), cwd: root });
    const sandboxed = createSandboxedRuntime(plain, policy, { mode: 'isolated' });
    const limitsOnly = createSandboxedRuntime(plain, policy, { mode: 'limits-only' });

    const firstStart = performance.now();
    await sandboxed.exec('true');
    const firstSandboxedMs = performance.now() - firstStart;

    const plainMs = await timeRuns(plain);
    const sandboxedMs = await timeRuns(sandboxed);
    const limitsOnlyMs = await timeRuns(limitsOnly);
    const coldPlain = await coldStarts(['--adapter', 'acp'], root);
    const coldSandboxed = await coldStarts(['--adapter', 'sandbox', '--adapter', 'acp'], root);
    return {
      runs: RUNS,
      plainMedianMs: median(plainMs),
      sandboxedMedianMs: median(sandboxedMs),
      sandboxedP90Ms: percentile(sandboxedMs, 90),
      addedLatencyMedianMs: round(median(sandboxedMs) - median(plainMs)),
      limitsOnlyMedianMs: median(limitsOnlyMs),
      firstSandboxedCallMs: round(firstSandboxedMs),
      coldStartPlainMedianMs: median(coldPlain),
      coldStartSandboxedMedianMs: median(coldSandboxed),
    };
  } finally {
    await resetSandboxRuntime();
    rmSync(root, { recursive: true, force: true });
  }
}

const CLI = fileURLToPath(new URL('../bin/plaited-agent.js', import.meta.url));
const COLD_RUNS = 3;

/** Spawn → `initialize` answered, for the built CLI with the given adapters (the whole-agent wrapper costs a second Node start). */
async function coldStarts(args: string[], cwd: string): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < COLD_RUNS; run++) {
    const start = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n');
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`the CLI exited with ${code} before answering initialize`)));
    });
    times.push(performance.now() - start);
    child.stdin.end();
    await new Promise((done) => child.once('exit', done));
  }
  return times;
}

async function timeRuns(runtime: Runtime): Promise<number[]> {
  await runtime.exec('true');
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const result = await runtime.exec('true');
    times.push(performance.now() - start);
    if (result.exitCode !== 0) throw new Error(`\`true\` failed under ${runtime.kind}: ${result.output}`);
  }
  return times;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchSandbox().then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`bench sandbox: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
