import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secretEnvNames } from '../src/tools/secret-env.js';
import { median } from './stats.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../bin/plaited-agent.js');

/**
 * Spawn → `initialize` answered, and the process's RSS at that moment (median of `runs`),
 * with `runtime` running the built CLI (this Node by default; Bun in the runtimes section).
 * The environment is `env` (default: this process's without secret-looking variables, so
 * the CLI starts directly; with one, it re-executes itself without it first and the RSS is
 * the launcher's).
 */
export async function benchColdStart(
  runs = 10,
  runtime = process.execPath,
  env: NodeJS.ProcessEnv = withoutSecrets(),
  cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-')),
): Promise<Record<string, number>> {
  const times: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const result = await oneStart(cwd, runtime, env);
    times.push(result.ms);
    rss.push(result.rssMb);
  }
  return { coldStartMedianMs: median(times), coldStartMinMs: Math.min(...times), rssAtInitializeMb: median(rss) };
}

/**
 * The same, in a project with a trusted `.plaited/config.ts` that imports a helper (the documented
 * way to configure a project): the first start transpiles the TypeScript, later ones may reuse it.
 */
export async function benchColdStartWithConfig(runs = 10): Promise<Record<string, number>> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-config-'));
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited/helper.ts'), 'export const workers = (cores: number): number => Math.max(1, cores - 1);\n');
  writeFileSync(
    join(cwd, '.plaited/config.ts'),
    "import { workers } from './helper.js';\n\nexport default { scripts: { test: `npm test -- --maxWorkers=${workers(2)}` } };\n",
  );
  // A trust store of the bench's own, so no earlier run's transpiled copy is reused.
  const env = { ...withoutSecrets(), XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'plaited-bench-xdg-')) };
  const trust = spawnSync(process.execPath, [CLI, 'trust'], { cwd, env, encoding: 'utf8' });
  if (trust.status !== 0) throw new Error(`plaited-agent trust failed: ${trust.stderr}`);
  const first = await oneStart(cwd, process.execPath, env);
  const later = await benchColdStart(runs, process.execPath, env, cwd);
  return { firstStartMs: first.ms, ...later };
}

function oneStart(cwd: string, runtime: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; rssMb: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(runtime, [CLI], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const ms = performance.now() - started;
      let rssMb = 0;
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      } catch {
        // Not Linux: report 0.
      }
      child.kill();
      resolvePromise({ ms, rssMb });
    });
    child.on('error', reject);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  });
}

/** This process's environment without its secret-looking variables. */
export function withoutSecrets(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean = { ...env };
  for (const name of secretEnvNames(env)) delete clean[name];
  return clean;
}
