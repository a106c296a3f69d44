import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PlaitedConfig } from '../config/schema.js';
import { errorMessage } from '../errors/error-message.js';
import { ensureStateFolder } from '../storage/state-folder.js';
import type { EmbeddingModel } from './embedding-model.js';

/**
 * The configured embedder, checked once. Without one (offline and not cached, or a bad
 * file) discovery falls back to BM25 alone: search degrades, nothing fails. `unavailable`
 * is the reason in one short line (node-llama-cpp's messages run to several).
 */
export async function openEmbedder(config: PlaitedConfig, projectDir: string): Promise<{ embedder?: EmbeddingModel; unavailable?: string }> {
  try {
    mkdirSync(resolve(projectDir, '.plaited'), { recursive: true });
    const { createEmbedder } = await import('./embedder.js');
    const { createDownloadProgressReporter } = await import('./download-progress.js');
    const embedder = createEmbedder({
      model: config.embedder.model,
      onDownloadProgress: createDownloadProgressReporter(process.stderr, `Downloading embedder ${config.embedder.model}`),
      threads: config.embedder.threads,
      batchSize: config.embedder.batchSize,
      cacheDb: join(ensureStateFolder(projectDir), 'index.db'),
    });
    await embedder.dimensions();
    return { embedder };
  } catch (error) {
    const firstLine = errorMessage(error).split('\n')[0]!.trim();
    return { unavailable: firstLine.length > 160 ? `${firstLine.slice(0, 157)}...` : firstLine };
  }
}
