import { appendFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureFolder } from '../storage/ensure-folder.js';

export interface RotatingLogFileOptions {
  /** Past this size the file is rotated (default 10 MiB). */
  maxBytes?: number;
  /** Rotated files kept: PATH.1 (newest) … PATH.N (default 3). */
  keep?: number;
}

/**
 * Appends lines to `path`, rotating it to `PATH.1` … `PATH.keep` once it would pass `maxBytes`,
 * so a long-running agent's log stays bounded (at most `maxBytes × (keep + 1)`). Writes are
 * synchronous: the line before a crash is on disk. A write that fails (disk full, folder gone)
 * is dropped, never thrown: logging must not take the agent down.
 */
export function rotatingLogFile(path: string, options: RotatingLogFileOptions = {}): (line: string) => void {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const keep = options.keep ?? 3;
  // Thrown here, at start, with the cause: a log file that cannot be written is a usage error.
  ensureFolder(dirname(path));
  appendFileSync(path, '', { mode: 0o600 });
  let size = sizeOf(path);
  return (line) => {
    const bytes = Buffer.byteLength(line) + 1;
    try {
      if (size > 0 && size + bytes > maxBytes) {
        rotate(path, keep);
        size = 0;
      }
      appendFileSync(path, `${line}\n`, { mode: 0o600 });
      size += bytes;
    } catch {
      size = sizeOf(path);
    }
  };
}

function rotate(path: string, keep: number): void {
  if (keep <= 0) {
    rmSync(path, { force: true });
    return;
  }
  rmSync(`${path}.${keep}`, { force: true });
  for (let index = keep - 1; index >= 1; index -= 1) {
    try {
      renameSync(`${path}.${index}`, `${path}.${index + 1}`);
    } catch {
      // not there yet
    }
  }
  renameSync(path, `${path}.1`);
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
