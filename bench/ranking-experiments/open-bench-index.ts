import { openHybridIndex, type HybridIndex, type HybridIndexOptions } from '../../src/retrieval/hybrid-index.js';
import { experimentalRank } from './experimental-rank.js';
import { splitBenchTuning, type BenchTuning } from './experiment-tuning.js';

/**
 * The hybrid index with bench overrides: shipped tuning goes to the index as is; when any
 * experiment is on, its ranking plugs into the index's `rank` seam. Without experiments the
 * index ranks with the shipped `rankRequest`, exactly as the product does.
 */
export function openBenchIndex(options: Omit<HybridIndexOptions, 'tuning' | 'rank'> & { tuning?: BenchTuning }): Promise<HybridIndex> {
  const { tuning, experiments, active } = splitBenchTuning(options.tuning);
  return openHybridIndex({ ...options, tuning, ...(active ? { rank: experimentalRank(experiments, options.embedder) } : {}) });
}
