import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Mounts a real tmpfs of `size` (`8m`) on a new temporary folder (the tests run as root); returns the folder. */
export function mountSmallTmpfs(size: string): string {
  const mountPoint = mkdtempSync(join(tmpdir(), 'plaited-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint]);
  return mountPoint;
}

/** Unmounts what `mountSmallTmpfs` mounted and removes the folder. */
export function unmountSmallTmpfs(mountPoint: string): void {
  execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
}

/** Writes a file in `folder` until the file system refuses more (ENOSPC); returns its path. */
export function fillDisk(folder: string): string {
  const path = join(folder, 'filler.bin');
  const fd = openSync(path, 'w');
  try {
    for (let size = 1024 * 1024; size >= 512; ) {
      try {
        writeSync(fd, Buffer.alloc(size, 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size /= 2;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
