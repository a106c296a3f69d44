import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PlaitedConfig } from '../config/schema.js';
import type { EmbeddingModel } from '../model/embedding-model.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { SemanticCacheEntry } from './semantic-cache.js';
import { readTextHeadSync } from '../storage/read-text-head.js';
import { setAsideDamagedFile } from '../storage/set-aside-damaged-file.js';
import { errorMessage } from '../errors/error-message.js';

/** A cache file larger than this is not read (it would be held whole): it is set aside. */
const MAX_CACHE_FILE_BYTES = 64 * 1024 * 1024;

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
  const { entries: initialEntries, writable } = readCacheFile(file, options.warn);
  const cache = createContextCache({
    config: options.config,
    embedder,
    initialEntries,
    ...(writable ? { onPersist: (entries: SemanticCacheEntry<string>[]) => writeFile(file, JSON.stringify(entries)) } : {}),
  });
  return cache ? withSemanticCache(model, cache) : model;
}

/**
 * The saved entries; none when there is no file. A file that cannot be read is moved aside (a
 * cache is built again) and said, never written over unread; if it cannot be moved, it is left
 * alone and the cache is kept in memory only.
 */
function readCacheFile(file: string, warn: (message: string) => void): { entries: SemanticCacheEntry<string>[] | undefined; writable: boolean } {
  try {
    const head = readTextHeadSync(file, MAX_CACHE_FILE_BYTES);
    if (head.truncated) throw new Error(`${head.size} bytes, over ${MAX_CACHE_FILE_BYTES}`);
    return { entries: JSON.parse(head.text) as SemanticCacheEntry<string>[], writable: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: undefined, writable: true };
    try {
      const aside = setAsideDamagedFile(file);
      warn(`the semantic cache ${file} could not be read (${errorMessage(error)}): moved to ${aside}; the cache starts empty`);
      return { entries: undefined, writable: true };
    } catch (moveError) {
      warn(`the semantic cache ${file} could not be read (${errorMessage(error)}) nor moved aside (${errorMessage(moveError)}): it is left as it is, and this run's cache is not saved`);
      return { entries: undefined, writable: false };
    }
  }
}
