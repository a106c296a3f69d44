import { stat } from 'node:fs/promises';
import { readTextHead } from '../storage/read-text-head.js';

/**
 * Text files read through a cache keyed by path and validated by mtime and size: rules
 * are looked up every turn, but re-read only when they changed on disk. Each is read up to
 * `maxBytes` (the prompt takes far less): a 200 MB file must not cost its size in memory.
 */
export interface CachedFile {
  path: string;
  text: string;
  mtimeMs: number;
  size: number;
  /** The file goes on past `text` (it is over the cache's `maxBytes`). */
  truncated: boolean;
  /** Not text: a NUL among its first 8 KB (garbage, or an encoding without a byte order mark). */
  binary: boolean;
}

export class MtimeCache {
  private readonly files = new Map<string, CachedFile>();

  /**
   * `maxBytes`: each file is read up to this many bytes. `onBinary`: told (once per version of
   * the file) of a file that is not text (a NUL among its first 8 KB), which reads as undefined.
   */
  constructor(
    private readonly maxBytes: number = 1024 * 1024,
    private readonly onBinary?: (path: string) => void,
  ) {}

  /** The file's current text, or undefined when it does not exist (or is not a text file). */
  async read(path: string): Promise<CachedFile | undefined> {
    let info;
    try {
      info = await stat(path);
    } catch {
      this.files.delete(path);
      return undefined;
    }
    if (!info.isFile()) return undefined;
    const cached = this.files.get(path);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.binary ? undefined : cached;
    const { text, truncated } = await readTextHead(path, this.maxBytes);
    const fresh = { path, text, mtimeMs: info.mtimeMs, size: info.size, truncated, binary: text.slice(0, 8192).includes('\u0000') };
    this.files.set(path, fresh);
    if (!fresh.binary) return fresh;
    this.onBinary?.(path);
    return undefined;
  }

  clear(): void {
    this.files.clear();
  }
}
