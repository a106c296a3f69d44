import { readlink, stat } from 'node:fs/promises';
import { errorMessage } from '../errors/error-message.js';
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
  /** Why each skipped path was skipped, as last told: a reason is told once, until it changes. */
  private readonly told = new Map<string, string>();

  /**
   * `maxBytes`: each file is read up to this many bytes. `onSkipped`: told, once per reason, of a
   * file that is there but reads as undefined: not text (a NUL among its first 8 KB), a folder,
   * a pipe, a symlink loop or a link to nowhere.
   */
  constructor(
    private readonly maxBytes: number = 1024 * 1024,
    private readonly onSkipped?: (path: string, why: string) => void,
  ) {}

  /** The file's current text, or undefined when it does not exist (or is not a text file). */
  async read(path: string): Promise<CachedFile | undefined> {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      this.files.delete(path);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return this.skip(path, errorMessage(error));
      // A link to nowhere is ENOENT too: it is there, and its target is not.
      const target = await readlink(path).catch(() => undefined);
      if (target !== undefined) return this.skip(path, `a link to ${target}, which is not there`);
      this.told.delete(path);
      return undefined;
    }
    if (!info.isFile()) return this.skip(path, info.isDirectory() ? 'a folder' : 'not a regular file');
    const cached = this.files.get(path);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.binary ? undefined : cached;
    const { text, truncated } = await readTextHead(path, this.maxBytes);
    const fresh = { path, text, mtimeMs: info.mtimeMs, size: info.size, truncated, binary: text.slice(0, 8192).includes('\u0000') };
    this.files.set(path, fresh);
    if (fresh.binary) return this.skip(path, 'not text: it holds NUL bytes; save it as UTF-8');
    this.told.delete(path);
    return fresh;
  }

  clear(): void {
    this.files.clear();
  }

  /** Leaves out a file the caller will not read (it leads outside where it may be read), told once per reason. */
  refuse(path: string, why: string): undefined {
    this.files.delete(path);
    return this.skip(path, why);
  }

  private skip(path: string, why: string): undefined {
    if (this.told.get(path) !== why) this.onSkipped?.(path, why);
    this.told.set(path, why);
    return undefined;
  }
}
