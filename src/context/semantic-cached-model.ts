import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PlaitedConfig } from '../config/schema.js';
import type { EmbeddingModel } from '../model/embedding-model.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';

/**
 * The model behind the semantic cache (`cache.enabled`). Entries persist in
 * `.plaited/semantic-cache.json`; without an embedder the model is used as is.
 */
export async function semanticCachedModel(options: {
  base: () => Promise<ResolvedLanguageModel>;
  embedder: () => Promise<EmbeddingModel | undefined>;
  config: PlaitedConfig;
  projectDir: string;
  warn: (message: string) => void;
}): Promise<ResolvedLanguageModel> {
  const model = await options.base();
  const embedder = await options.embedder();
  if (!embedder || model.specificationVersion !== 'v3') {
    options.warn('semantic cache needs an embedder and a v3 model; answering without it');
    return model;
  }
  const file = resolve(options.projectDir, '.plaited/semantic-cache.json');
  const { createContextCache } = await import('./context-extensions.js');
  const { withSemanticCache } = await import('./semantic-cache-model.js');
  let initialEntries;
  try {
    initialEntries = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    initialEntries = undefined; // none yet, or unreadable: start empty
  }
  const cache = createContextCache({
    config: options.config,
    embedder,
    initialEntries,
    onPersist: (entries) => writeFile(file, JSON.stringify(entries)),
  });
  return cache ? withSemanticCache(model, cache) : model;
}
