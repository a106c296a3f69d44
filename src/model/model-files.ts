import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { LocalModelError } from './local-model-error.js';
import { DEFAULT_CHAT_MODEL } from './resolve-model.js';
import { loadNodeLlamaCpp } from './shared-llama.js';
import { withDownloadWatchdog, type DownloadTimeouts } from './download-watchdog.js';
import { errorMessage } from '../errors/error-message.js';

/**
 * Where model files come from: a local path as is, or a remote URI (`hf:ORG/REPO:QUANT`,
 * `https://…`) resolved through node-llama-cpp's own resolution into one cache folder, downloaded
 * once. Offline, a missing file fails with the path or URI that was tried and how to use a local file.
 */

export interface DownloadProgress {
  downloadedBytes: number;
  totalBytes: number;
}

export interface ResolveModelFileOptions extends DownloadTimeouts {
  /** Default `$PLAITED_MODELS_DIR` or `~/.cache/plaited-agent/models`. */
  cacheDir?: string;
  /** Download a remote model that is not cached yet (default true). */
  download?: boolean;
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
}

export interface CachedModel {
  file: string;
  path: string;
  bytes: number;
  modifiedAt: Date;
}

export function defaultModelCacheDir(): string {
  return process.env.PLAITED_MODELS_DIR || join(homedir(), '.cache', 'plaited-agent', 'models');
}

export function isRemoteModelSpec(spec: string): boolean {
  return /^(hf:|huggingface:|https?:\/\/)/i.test(spec);
}

/** A spec → an absolute path of a GGUF file that exists. */
export async function resolveModelFile(spec: string, options: ResolveModelFileOptions = {}): Promise<string> {
  if (!isRemoteModelSpec(spec)) {
    const path = resolve(spec.startsWith('~/') ? join(homedir(), spec.slice(2)) : spec);
    if (!existsSync(path)) {
      throw new LocalModelError(
        'model_file_not_found',
        spec,
        `Model file not found: ${path} (from "${spec}"). Point the model at an existing GGUF file, ` +
          `e.g. --model llama-cpp:/path/to/model.gguf, or use an hf: URI such as llama-cpp:${DEFAULT_CHAT_MODEL}.`,
      );
    }
    return path;
  }
  const cacheDir = options.cacheDir ?? defaultModelCacheDir();
  const { resolveModelFile: resolveWithLlama } = await loadNodeLlamaCpp();
  if (options.download !== false) {
    // A model already in the cache needs no network: look locally first, download only when missing.
    try {
      // Resolving an hf: URI may ask the hub even without downloading: bounded like a download.
      return await withDownloadWatchdog(
        ({ signal }) => resolveWithLlama(spec, { directory: cacheDir, download: false, cli: false, signal }),
        { ...options, readTimeoutMs: undefined },
      );
    } catch {
      // Not cached (or not resolvable offline): fall through to the download.
    }
  }
  try {
    return await withDownloadWatchdog(
      ({ signal, onBytes }) =>
        resolveWithLlama(spec, {
          directory: cacheDir,
          download: options.download === false ? false : 'auto',
          cli: false,
          signal,
          onProgress: ({ downloadedSize, totalSize }) => {
            onBytes();
            options.onProgress?.({ downloadedBytes: downloadedSize, totalBytes: totalSize });
          },
        }),
      options,
    );
  } catch (cause) {
    const reason = errorMessage(cause);
    throw new LocalModelError(
      options.download === false ? 'model_file_not_found' : 'model_download_failed',
      spec,
      `Could not resolve model "${spec}" in ${cacheDir}: ${reason}. ` +
        `If this machine is offline, fetch it elsewhere with "plaited-agent models pull ${spec}" and copy ${cacheDir}, ` +
        'or point at a local file: --model llama-cpp:/path/to/model.gguf (embedder: embedder.model = "/path/to/model.gguf").',
      { cause },
    );
  }
}

/**
 * GGUF files in the cache folder, largest first (an empty list when the folder does not exist).
 * An entry that cannot be looked at (a symlink loop, a dangling link) is left out and told to
 * `onUnreadable`; a cache that cannot be listed is a `model_cache_unreadable` LocalModelError.
 */
export async function listCachedModels(options: { cacheDir?: string; onUnreadable?: (file: string, error: unknown) => void } = {}): Promise<CachedModel[]> {
  const cacheDir = options.cacheDir ?? defaultModelCacheDir();
  let names: string[];
  try {
    names = await readdir(cacheDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new LocalModelError(
      'model_cache_unreadable',
      cacheDir,
      `The model cache ${cacheDir} cannot be listed (${errorMessage(error)}): make it a folder you can read, or use another (--cache-dir, PLAITED_MODELS_DIR).`,
      { cause: error },
    );
  }
  const models: CachedModel[] = [];
  for (const file of names) {
    if (!file.toLowerCase().endsWith('.gguf')) continue;
    const path = join(cacheDir, file);
    try {
      const info = await stat(path);
      if (info.isFile()) models.push({ file, path, bytes: info.size, modifiedAt: info.mtime });
    } catch (error) {
      options.onUnreadable?.(file, error);
    }
  }
  return models.sort((a, b) => b.bytes - a.bytes || a.file.localeCompare(b.file));
}
