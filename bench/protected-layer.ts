import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLocalRuntime } from '../src/tools/local-runtime.js';
import { createProtectedLayer } from '../src/tools/protected-layer.js';
import type { Runtime } from '../src/contracts/runtime.js';
import { median, percentile, round } from './stats.js';

const RUNS = 30;

/**
 * What the read-only layer (src/tools/protected-layer.ts) adds to one unsandboxed
 * bash call: `true` run bare against the same under the layer, in a repository with
 * a nested one, median and p90 of 30 after one warm-up each (the walk is cached, the
 * placeholders are made and removed per call, as in use).
 */
export async function benchProtectedLayer(): Promise<Record<string, number>> {
  const { layer, reason } = createProtectedLayer();
  if (!layer) throw new Error(`the layer is unavailable: ${reason}`);
  const root = mkdtempSync(join(tmpdir(), 'plaited-bench-layer-'));
  try {
    execFileSync('git', ['init', '-q', root]);
    mkdirSync(join(root, 'libs', 'nested'), { recursive: true });
    execFileSync('git', ['init', '-q', join(root, 'libs', 'nested')]);
    const bareMs = await timeRuns(createLocalRuntime(root));
    const layeredMs = await timeRuns(createLocalRuntime(root, { layer }));
    return {
      runs: RUNS,
      bareMedianMs: round(median(bareMs)),
      layeredMedianMs: round(median(layeredMs)),
      layeredP90Ms: round(percentile(layeredMs, 90)),
      addedLatencyMedianMs: round(median(layeredMs) - median(bareMs)),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function timeRuns(runtime: Runtime): Promise<number[]> {
  await runtime.exec('true');
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const result = await runtime.exec('true');
    times.push(performance.now() - start);
    if (result.exitCode !== 0) throw new Error(`\`true\` failed: ${result.output}`);
  }
  return times;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await benchProtectedLayer())}\n`);
}
