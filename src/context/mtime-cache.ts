import { readFile, stat } from 'node:fs/promises';

/**
 * Text files read through a cache keyed by path and validated by mtime and size: rules
 * are looked up every turn, but re-read only when they changed on disk.
 */
export interface CachedFile {
  path: string;
  text: string;
  mtimeMs: number;
  size: number;
}

export class MtimeCache {
  private readonly files = new Map<string, CachedFile>();

  /** The file's current text, or undefined when it does not exist (or is not a file). */
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
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached;
    const text = await readFile(path, 'utf8');
    const fresh = { path, text, mtimeMs: info.mtimeMs, size: info.size };
    this.files.set(path, fresh);
    return fresh;
  }

  clear(): void {
    this.files.clear();
  }
}
