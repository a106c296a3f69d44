/**
 * Context layer speed: loading a catalog of 200 skills (from disk, then with indexing into
 * the hybrid index with the GloVe embedder) and memory search latency over a 2,000-page wiki
 * (p50/p95 of `MemoryWiki.search`, hybrid BM25 + dense, after the initial sync). Returns
 * numbers; prints them as JSON only when run directly (`node dist/bench/context.js`).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemoryWiki } from '../src/context/memory-wiki.js';
import { SkillCatalog } from '../src/context/skill-catalog.js';
import { createEmbedder } from '../src/model/embedder.js';
import { openHybridIndex } from '../src/retrieval/hybrid-index.js';
import { percentile, round } from './stats.js';
import { testModelPath } from './test-model-path.js';

const SYSTEMS = ['billing', 'auth', 'search', 'payments', 'inventory', 'shipping', 'email', 'analytics', 'storage', 'gateway'];
const ASPECTS = ['deployment', 'backups', 'on-call', 'schema', 'caching', 'rate limits', 'alerts', 'migrations', 'testing', 'secrets'];
const FACTS = [
  'runs on three replicas behind the load balancer',
  'keeps nightly snapshots for thirty days',
  'pages the primary engineer first and the team lead after thirty minutes',
  'stores its tables in PostgreSQL with numbered migration files',
  'caches hot keys in Redis for five minutes',
  'allows one hundred requests per minute per client',
  'alerts when the error rate passes two percent',
  'ships schema changes behind a feature flag',
  'has end-to-end tests that run against a local server',
  'reads its credentials from the vault at startup',
];

async function writeSkills(dir: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const system = SYSTEMS[i % SYSTEMS.length];
    const aspect = ASPECTS[Math.floor(i / SYSTEMS.length) % ASPECTS.length];
    const name = `${system}-${aspect.replace(/\s+/g, '-')}-${i}`;
    const skill = join(dir, 'skills', name);
    await mkdir(join(skill, 'references'), { recursive: true });
    await mkdir(join(skill, 'scripts'), { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      `---\nname: ${name}\ndescription: Handle ${aspect} for the ${system} service. Use when the user asks about ${system} ${aspect}.\n---\n\n` +
        `# ${system} ${aspect}\n\nSee [How the ${system} service handles ${aspect}](references/guide.md).\nRun scripts/check.sh first.\n`,
    );
    await writeFile(join(skill, 'references', 'guide.md'), `# ${system} ${aspect}\n\nThe ${system} service ${FACTS[i % FACTS.length]}.\n`);
    await writeFile(join(skill, 'scripts', 'check.sh'), '#!/bin/sh\necho ok\n');
  }
}

async function writePages(dir: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const system = SYSTEMS[i % SYSTEMS.length];
    const aspect = ASPECTS[Math.floor(i / SYSTEMS.length) % ASPECTS.length];
    const folder = join(dir, system);
    await mkdir(folder, { recursive: true });
    const facts = [0, 3, 7].map((offset) => FACTS[(i + offset) % FACTS.length]);
    await writeFile(
      join(folder, `${aspect.replace(/\s+/g, '-')}-${i}.md`),
      `# ${system} ${aspect} note ${i}\n\nThe ${system} service ${facts[0]}.\nFor ${aspect}, it ${facts[1]}.\nSee [[${system}-overview]]. It also ${facts[2]}.\n`,
    );
  }
}

export async function benchContext(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  const root = await mkdtemp(join(tmpdir(), 'plaited-bench-context-'));
  const embedder = createEmbedder({
    model: testModelPath('PLAITED_TEST_EMBED_MODEL', 'glove-6B-100d-bert.gguf', 'the context benchmark needs the GloVe embedder'),
    threads: 1,
  });
  try {
    await writeSkills(root, 200);
    let start = performance.now();
    const plain = await SkillCatalog.load({ roots: ['skills'], cwd: root });
    results.skills_catalog_load_200_ms = round(performance.now() - start);
    start = performance.now();
    const prompt = plain.prompt({ maxChars: 12_000 });
    results.skills_catalog_prompt_ms = round(performance.now() - start);
    results.skills_catalog_prompt_chars = prompt.length;

    await embedder.embed(['warm up the model']);
    const skillIndex = await openHybridIndex({ path: join(root, 'skills.db'), embedder });
    start = performance.now();
    await SkillCatalog.load({ roots: ['skills'], cwd: root, index: skillIndex });
    results.skills_catalog_load_and_index_200_ms = round(performance.now() - start);
    start = performance.now();
    await SkillCatalog.load({ roots: ['skills'], cwd: root, index: skillIndex });
    results.skills_catalog_reload_indexed_200_ms = round(performance.now() - start);
    skillIndex.close();

    const wikiDir = join(root, 'memory');
    await writePages(wikiDir, 2_000);
    const memoryIndex = await openHybridIndex({ path: join(root, 'memory.db'), embedder });
    const wiki = new MemoryWiki({ dir: wikiDir, index: memoryIndex });
    start = performance.now();
    await wiki.sync();
    results.memory_sync_2000_pages_ms = round(performance.now() - start);
    const latencies: number[] = [];
    for (const system of SYSTEMS) {
      for (const aspect of ASPECTS.slice(0, 5)) {
        // Distinct queries, so the embedder's cache never answers for the model.
        const query = `how does ${system} deal with ${aspect} ${latencies.length}`;
        start = performance.now();
        await wiki.search(query, { limit: 5 });
        latencies.push(performance.now() - start);
      }
    }
    results.memory_search_2000_pages_p50_ms = percentile(latencies, 50);
    results.memory_search_2000_pages_p95_ms = percentile(latencies, 95);
    memoryIndex.close();
  } finally {
    await embedder.close();
    await rm(root, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  benchContext().then(
    (numbers) => process.stdout.write(`${JSON.stringify(numbers, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
