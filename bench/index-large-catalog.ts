import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createEmbedder } from '../src/model/embedder.js';
import { openHybridIndex } from '../src/retrieval/hybrid-index.js';
import type { IndexDocument } from '../src/retrieval/search-index.js';
import { GLOVE_GGUF_FILE } from './test-models/build-glove-gguf.js';
import { testModelPath } from './test-model-path.js';

const TOPICS = ['invoice', 'customer', 'weather', 'ticket', 'deploy', 'branch', 'calendar', 'email', 'payment', 'report', 'shipment', 'alert'];

/** 3,000 tool documents shaped as the MCP registry writes them. */
function catalog(count: number): IndexDocument[] {
  return Array.from({ length: count }, (_, i) => {
    const [a, b] = [TOPICS[i % TOPICS.length]!, TOPICS[(i * 7 + 3) % TOPICS.length]!];
    return {
      id: `tool:bench:mcp__bench__tool_${i}_${a}_${b}`,
      kind: 'tool',
      namespace: 'bench',
      fields: { name: `tool_${i}_${a}_${b}`, description: `Handles ${a} and ${b} records (set ${i}): create, update, list and archive them.`, args: `id: the ${a} id; note` },
    };
  });
}

/**
 * The event loop while a 3,000-tool catalog is indexed (the MCP registry's first sync of a big
 * server): worst and p99 delay (perf_hooks monitorEventLoopDelay, 10 ms resolution) and the
 * sync's time, BM25 only and with the GloVe test embedder.
 */
export async function benchIndexLargeCatalog(count = 3000): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const withEmbedder of [false, true]) {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-bench-index-'));
    const embedder = withEmbedder ? createEmbedder({ model: testModelPath('PLAITED_TEST_EMBED_MODEL', GLOVE_GGUF_FILE, 'index bench'), threads: 1 }) : undefined;
    const index = await openHybridIndex({ path: join(dir, 'index.db'), embedder });
    try {
      if (embedder) await embedder.embed(['warm up']);
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      // Armed first: the monitor's timer must be running before the sync starts, or a block at the start goes unseen.
      await new Promise((resolve) => setTimeout(resolve, 30));
      const started = performance.now();
      await index.sync('bench', catalog(count));
      const ms = performance.now() - started;
      // One more turn of the loop: a block that lasted to the end is recorded when the monitor's timer finally runs.
      await new Promise((resolve) => setTimeout(resolve, 30));
      delay.disable();
      const prefix = withEmbedder ? 'embedded' : 'bm25';
      result[`${prefix}IndexMs`] = Math.round(ms);
      result[`${prefix}MaxLoopDelayMs`] = Math.round(delay.max / 1e6);
      result[`${prefix}P99LoopDelayMs`] = Math.round(delay.percentile(99) / 1e6);
    } finally {
      index.close();
      await embedder?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return result;
}
