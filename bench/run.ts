import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchColdStart, benchColdStartWithConfig, withoutSecrets } from './cold-start.js';
import { benchLoopOverhead } from './loop-overhead.js';
import { benchSessionStartCpu } from './session-start-cpu.js';

/**
 * `npm run bench`: every benchmark of the project, one section each, as JSON lines on
 * stdout. Sections whose module is missing are reported as skipped, never silently dropped.
 */
const here = dirname(fileURLToPath(import.meta.url));
const sections: Array<[string, () => Promise<Record<string, number>>]> = [
  ['cold start (spawn → initialize answered)', () => benchColdStart()],
  // A secret in the environment makes the CLI re-execute itself without it (src/cli/reexec-without-secrets.ts).
  ['cold start with a secret in the environment (re-exec)', () => benchColdStart(10, process.execPath, { ...withoutSecrets(), PLAITED_API_KEY: 'sk-bench' })],
  ['cold start with a trusted .plaited/config.ts (first start, then 10 more)', () => benchColdStartWithConfig()],
  ['CPU of one session start (spawn → initialize → session/new → exit)', () => benchSessionStartCpu()],
  ['agent loop overhead', () => benchLoopOverhead()],
  ['time to first token per native provider (recorded streams, local server)', () => optional('provider-ttft.js', 'benchProviderTtft')],
  ['local models', () => optional('local-models.js', 'benchLocalModels')],
  ['retrieval at scale (10,000 tools)', () => optional('retrieval-scale.js', 'benchRetrievalScale')],
  ['retrieval at scale, real catalog replicated (10,000 tools)', () => optional('retrieval-scale-real.js', 'benchRetrievalScaleReal')],
  ['context layer', () => optional('context.js', 'benchContext')],
  ['adapters', () => optional('adapters.js', 'benchAdapters')],
  ['sandbox', () => optional('sandbox.js', 'benchSandbox')],
  ['protected layer (unsandboxed commands)', () => optional('protected-layer.js', 'benchProtectedLayer')],
  ['memory (RSS over 1,000 turns in one session)', () => optional('memory.js', 'benchMemory')],
  ['streamed reply persistence (5 MB and 50 MB in 2 KB pieces)', () => optional('stream-persistence.js', 'benchStreamPersistence')],
  ['runtimes (Node and Bun)', () => optional('runtimes.js', 'benchRuntimes')],
  ['indexing a 3,000-tool MCP catalog (event-loop delay)', () => optional('index-large-catalog.js', 'benchIndexLargeCatalog')],
  ['replicas: one on SQLite, one on PostgreSQL, three on PostgreSQL behind nginx (turns/s, p50/p99 per turn, instant model)', () => optional('replicas.js', 'benchReplicas')],
  ['read_file of a 300 MB file (three in parallel; whole-file read vs window)', () => optional('read-file-huge.js', 'benchReadFileHuge')],
];

async function optional(file: string, name: string): Promise<Record<string, number>> {
  const path = join(here, file);
  if (!existsSync(path)) throw new Error(`${file} is not built`);
  const module = (await import(path)) as Record<string, () => Promise<Record<string, number>>>;
  const bench = module[name];
  if (!bench) throw new Error(`${file} does not export ${name}`);
  return bench();
}

const only = process.argv.slice(2);
let failed = false;
for (const [title, run] of sections) {
  if (only.length > 0 && !only.some((word) => title.includes(word))) continue;
  try {
    const result = await run();
    process.stdout.write(`${JSON.stringify({ section: title, ...result })}\n`);
  } catch (error) {
    failed = true;
    process.stdout.write(`${JSON.stringify({ section: title, error: (error as Error).message })}\n`);
  }
}
process.exit(failed ? 1 : 0);
