import { join, resolve } from 'node:path';
import type { PlaitedConfig } from '../config/schema.js';
import { errorMessage } from '../errors/error-message.js';
import { ensureStateFolder } from '../storage/state-folder.js';
import type { EmbeddingModel } from './embedding-model.js';
import { ensureFolder } from '../storage/ensure-folder.js';

/**
 * The project's configured embedder, not loaded yet: node-llama-cpp and the model load on its
 * first `dimensions` or `embed` call, so a start that never embeds anything (no tools, skills or
 * memory to index, no search) never pays for them. Whoever uses it first learns whether it
 * works: the hybrid index falls back to BM25 alone when it does not (`onEmbedderUnavailable`).
 */
export async function projectEmbedder(config: PlaitedConfig, projectDir: string): Promise<EmbeddingModel & { close(): Promise<void> }> {
  ensureFolder(resolve(projectDir, '.plaited'));
  const { createEmbedder } = await import('./embedder.js');
  const { createDownloadProgressReporter } = await import('./download-progress.js');
  return createEmbedder({
    model: config.embedder.model,
    onDownloadProgress: createDownloadProgressReporter(process.stderr, `Downloading embedder ${config.embedder.model}`),
    threads: config.embedder.threads,
    batchSize: config.embedder.batchSize,
    cacheDb: join(ensureStateFolder(projectDir), 'index.db'),
  });
}

/**
 * The configured embedder, loaded and checked now (`plaited-agent doctor`). Without one (offline
 * and not cached, or a bad file) `unavailable` is the reason in one short line.
 */
export async function openEmbedder(config: PlaitedConfig, projectDir: string): Promise<{ embedder?: EmbeddingModel; unavailable?: string }> {
  try {
    const embedder = await projectEmbedder(config, projectDir);
    const usable = await usableEmbedder(embedder);
    if (!usable.embedder) await embedder.close();
    return usable;
  } catch (error) {
    return { unavailable: unavailableReason(error) };
  }
}

/** The embedder once its model has loaded, or why it did not. */
export async function usableEmbedder(embedder: EmbeddingModel): Promise<{ embedder?: EmbeddingModel; unavailable?: string }> {
  try {
    await embedder.dimensions();
    return { embedder };
  } catch (error) {
    return { unavailable: unavailableReason(error) };
  }
}

/** The first line of a load failure, at most 160 characters (node-llama-cpp's messages run to several lines). */
export function unavailableReason(error: unknown): string {
  const firstLine = errorMessage(error).split('\n')[0]!.trim();
  return firstLine.length > 160 ? `${firstLine.slice(0, 157)}...` : firstLine;
}
