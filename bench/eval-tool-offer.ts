/**
 * `node dist/bench/eval-tool-offer.js [--data DIR] [--splits dev,heldout] [--json]`: what the
 * model sees on the real MCP catalog, through the real registry (the recorded servers served
 * over MCP by catalog-mcp-host.ts), the real hybrid index and the GloVe embedder:
 *
 * - the first offer (the MCP extension's tools for turn 1, default `mcp.discovery` 8 tools):
 *   the share of each task's gold groups it covers and the share of tasks fully covered, through
 *   the extension (`discoverRelevant`) and through `registry.tools.search` for the whole request
 *   (the two agree since the index ranks steps itself; the per-step layer they were compared for
 *   is gone, see RETRIEVAL.md);
 * - `search_tools` with the per-step queries of DIR/<split>/step-queries.jsonl, as the model
 *   would type them: R@1 and R@5 over the listed results (a result counts with its "same
 *   job" alternatives, which the model sees), and how often "nothing matched well" is said;
 * - the weak-match calibration (calibrate-weak-match.ts): the same step queries with every
 *   server of their gold tools removed, so nothing fitting is left.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { TurnContext } from '../src/agent/agent-extension.js';
import { configSchema } from '../src/config/schema.js';
import { formatToolSearch } from '../src/mcp/format-tool-search.js';
import { createMcpExtension } from '../src/mcp/mcp-extension.js';
import { McpRegistry } from '../src/mcp/mcp-registry.js';
import { createSearchToolsTool } from '../src/mcp/search-tools-tool.js';
import { mcpToolName } from '../src/mcp/tool-name.js';
import type { McpDocumentPayload } from '../src/mcp/mcp-catalog-documents.js';
import { openHybridIndex, type HybridIndex } from '../src/retrieval/hybrid-index.js';
import { createLocalRuntime } from '../src/tools/local-runtime.js';
import { loadRecordedServers, startCatalogHost } from './catalog-mcp-host.js';
import { goldGroupsOf, type EvalQuery } from './retrieval-dataset.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { calibrateWeakMatch, type StrengthSample } from './calibrate-weak-match.js';

export interface OfferReport {
  tasks: number;
  steps: number;
  offerSize: number;
  /** Mean share of a task's gold groups in the first offer. */
  perStepCoverage: number;
  perStepComplete: number;
  wholeRequestCoverage: number;
  wholeRequestComplete: number;
  searchToolsR1: number;
  searchToolsR5: number;
  /** Share of step queries answered with "nothing matched well". */
  searchToolsWeak: number;
  /** Share of step queries whose gold was in the top 5 yet flagged weak. */
  weakButFound: number;
  /** With the gold servers removed: share flagged weak (higher is better). */
  negativesFlagged: number;
}

interface StepQueries {
  id: string;
  steps: string[];
}

const DATA = 'bench/data/real-mcp-catalog';

export async function evaluateToolOffer(options: { dataDir?: string; splits?: string[] } = {}): Promise<{ splits: Record<string, OfferReport>; calibration: ReturnType<typeof calibrateWeakMatch> }> {
  const dataDir = options.dataDir ?? DATA;
  const servers = loadRecordedServers(dataDir);
  const host = await startCatalogHost(servers);
  const embedder = resolveEvalEmbedder();
  const dir = mkdtempSync(join(tmpdir(), 'plaited-tool-offer-'));
  const index = await openHybridIndex({ path: join(dir, 'index.db'), embedder });
  const registry = new McpRegistry({ index });
  try {
    for (const config of host.configs) await registry.servers.add(config);
    await registry.idle();
    const config = configSchema.parse({});
    const extension = createMcpExtension({ registry, config });
    const searchTools = createSearchToolsTool({ registry, limit: config.mcp.discovery.limit });
    const splits: Record<string, OfferReport> = {};
    const samples: Record<string, StrengthSample[]> = {};
    for (const split of options.splits ?? ['dev', 'heldout']) {
      const tasks = readJsonl<EvalQuery>(join(dataDir, split, 'queries.jsonl'));
      const stepQueries = new Map(readJsonl<StepQueries>(join(dataDir, split, 'step-queries.jsonl')).map((entry) => [entry.id, entry.steps]));
      const sums = { perStep: 0, perStepComplete: 0, whole: 0, wholeComplete: 0, r1: 0, r5: 0, weak: 0, weakFound: 0, negatives: 0, flagged: 0, steps: 0, offer: 0 };
      samples[split] = [];
      for (const task of tasks) {
        const groups = goldGroupsOf(task).map((group) => group.map(registryName));
        const offered = ((await extension.tools?.(turn(task.query))) ?? []).map((tool) => tool.name).filter((name) => name.startsWith('mcp__')); // search_tools and the resource tools are not the offer
        const whole = (await registry.tools.search(task.query, { limit: config.mcp.discovery.limit })).map((match) => match.tool.name);
        const covered = (names: string[]) => groups.filter((group) => group.some((name) => names.includes(name))).length;
        sums.offer += offered.length;
        sums.perStep += covered(offered) / groups.length;
        sums.perStepComplete += covered(offered) === groups.length ? 1 : 0;
        sums.whole += covered(whole) / groups.length;
        sums.wholeComplete += covered(whole) === groups.length ? 1 : 0;
        const steps = stepQueries.get(task.id);
        if (!steps || steps.length !== groups.length) throw new Error(`${split}/step-queries.jsonl: ${task.id} needs one query per gold group`);
        for (const [i, step] of steps.entries()) {
          const result = await searchTools.execute({ query: step }, { ...turn(''), toolCallId: `${task.id}-${i}`, allowedRoots: [], onUpdate: () => undefined });
          const text = (result.content[0] as { text: string }).text;
          const entries = parseEntries(text);
          const rank = entries.findIndex((entry) => entry.some((name) => groups[i].includes(name)));
          const weak = text.startsWith('Nothing matched');
          sums.steps++;
          sums.r1 += rank === 0 ? 1 : 0;
          sums.r5 += rank >= 0 && rank < 5 ? 1 : 0;
          sums.weak += weak ? 1 : 0;
          sums.weakFound += weak && rank >= 0 && rank < 5 ? 1 : 0;
          // The same query with no fitting tool left: every server of this group's tools removed.
          const removed = new Set(goldServers(goldGroupsOf(task)[i]));
          const negative = await strengthWithout(index, registry, step, removed);
          sums.negatives++;
          sums.flagged += negative.weak ? 1 : 0;
          samples[split].push({ positive: rank >= 0 && rank < 5, strength: strengthOf(text, registry, step) }, { positive: false, strength: negative.strength, negative: true });
        }
      }
      splits[split] = {
        tasks: tasks.length,
        steps: sums.steps,
        offerSize: sums.offer / tasks.length,
        perStepCoverage: sums.perStep / tasks.length,
        perStepComplete: sums.perStepComplete / tasks.length,
        wholeRequestCoverage: sums.whole / tasks.length,
        wholeRequestComplete: sums.wholeComplete / tasks.length,
        searchToolsR1: sums.r1 / sums.steps,
        searchToolsR5: sums.r5 / sums.steps,
        searchToolsWeak: sums.weak / sums.steps,
        weakButFound: sums.weakFound / sums.steps,
        negativesFlagged: sums.flagged / sums.negatives,
      };
    }
    return { splits, calibration: calibrateWeakMatch(samples) };
  } finally {
    await registry.close();
    index.close();
    await embedder.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function registryName(id: string): string {
  const [server, ...rest] = id.split('__');
  return mcpToolName(server ?? '', rest.join('__'));
}

function goldServers(group: readonly string[]): string[] {
  return group.map((id) => id.split('__')[0] ?? '');
}

/** The listed results of a `search_tools` answer: each numbered line with its "same job" line. */
export function parseEntries(text: string): string[][] {
  const entries: string[][] = [];
  for (const line of text.split('\n')) {
    const numbered = /^\d+\. (\S+)/.exec(line);
    if (numbered) entries.push([numbered[1]]);
    else if (line.trim().startsWith('same job:') && entries.length > 0) {
      entries[entries.length - 1].push(...[...line.matchAll(/(mcp__\S+)/g)].map((match) => match[1]));
    }
  }
  return entries;
}

/** The strength `search_tools` computed for its answer, recomputed from the tools it listed. */
function strengthOf(text: string, registry: McpRegistry, query: string): number {
  const tools = parseEntries(text).map((entry) => registry.tools.get(entry[0])).filter((tool) => tool !== undefined);
  return formatToolSearch(query, tools, { allTools: registry.tools.list(), limit: 8 }).strength;
}

/** Ranks `query` with the gold servers' namespaces left out (the index's namespaces filter). */
async function strengthWithout(index: HybridIndex, registry: McpRegistry, query: string, servers: ReadonlySet<string>): Promise<{ strength: number; weak: boolean }> {
  const namespaces = registry.servers.list().filter((server) => !servers.has(server.id)).map((server) => `mcp:${server.id}`);
  const hits = await index.search(query, { kinds: ['tool'], namespaces, limit: 16 });
  const tools = hits.map((hit) => registry.tools.get((hit.document.payload as McpDocumentPayload).ref)).filter((tool) => tool !== undefined);
  const view = formatToolSearch(query, tools, { allTools: registry.tools.list(), limit: 8 });
  return { strength: view.strength, weak: view.text.startsWith('Nothing matched') };
}

function turn(intent: string): TurnContext {
  return { sessionId: 'eval', cwd: tmpdir(), intent, signal: new AbortController().signal, runtime: createLocalRuntime(tmpdir()), emit: () => undefined };
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' }, splits: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const report = await evaluateToolOffer({ dataDir: values.data, splits: values.splits?.split(',') });
  if (values.json) return void process.stdout.write(`${JSON.stringify(report)}\n`);
  for (const [split, r] of Object.entries(report.splits)) {
    process.stdout.write(
      `${split}: ${r.tasks} tasks, ${r.steps} steps\n` +
        `  first offer (${r.offerSize.toFixed(1)} tools): gold groups covered ${r.perStepCoverage.toFixed(3)} offer vs ${r.wholeRequestCoverage.toFixed(3)} tools.search; ` +
        `tasks fully covered ${r.perStepComplete.toFixed(3)} vs ${r.wholeRequestComplete.toFixed(3)}\n` +
        `  search_tools per step: R@1 ${r.searchToolsR1.toFixed(3)} R@5 ${r.searchToolsR5.toFixed(3)}; "nothing matched well" ${r.searchToolsWeak.toFixed(3)} ` +
        `(of which gold in top 5: ${r.weakButFound.toFixed(3)}); with the gold servers removed flagged ${r.negativesFlagged.toFixed(3)}\n`,
    );
  }
  process.stdout.write(`weak-match calibration: ${JSON.stringify(report.calibration)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`eval-tool-offer: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
