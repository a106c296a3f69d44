import type { PlaitedConfig } from '../config/schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import { createEpisodicMemory, type EpisodicMemory } from './episodic-memory.js';
import { episodeIndexOpener } from './open-episode-index.js';
import { summarizeEpisode } from './summarize-episode.js';

export interface EpisodicExtensionOptions {
  config: PlaitedConfig;
  /** The model that writes the summaries (and reflections, with `agent.reflection`). */
  model: () => Promise<ResolvedLanguageModel>;
  /** Where episodes live; default `<project>/.plaited/episodes.db` (BM25 only). Pass the shared hybrid index to get dense search. */
  index?: (cwd: string) => Promise<SearchIndex>;
}

/**
 * `agent.episodic` as an extension beside memory: it reaches into the hybrid index, so it
 * lives in src/context and `createDefaultAgent` composes it; the core knows only the contract.
 */
export function createEpisodicExtension(options: EpisodicExtensionOptions): EpisodicMemory {
  const { config } = options;
  const opener = options.index ? undefined : episodeIndexOpener();
  const memory = createEpisodicMemory({
    index: options.index ?? ((cwd) => opener!.open(cwd)),
    inject: config.agent.episodic.inject,
    summarize: async (input, signal) => summarizeEpisode(await options.model(), input, { reflection: config.agent.reflection, signal }),
  });
  return {
    ...memory,
    async close() {
      await memory.close?.();
      opener?.closeAll();
    },
  };
}
