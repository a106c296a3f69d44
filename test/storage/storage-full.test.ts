import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/storage/session-store.js';
import { StorageError } from '../../src/storage/storage-error.js';

/** A real 4 MiB tmpfs (the tests run as root). */
let mountPoint: string;
beforeAll(() => {
  mountPoint = mkdtempSync(join(tmpdir(), 'plaited-store-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
});
afterAll(() => {
  execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

function fillDisk(): string {
  const path = join(mountPoint, 'filler.bin');
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

function storageCode(write: () => unknown): string | undefined {
  try {
    write();
  } catch (error) {
    return StorageError.isInstance(error) ? error.code : `not a StorageError: ${String(error)}`;
  }
  return undefined;
}

describe('a full disk', () => {
  it('fails writes with storage_full (nothing of them stored), and the store works again once space is free', () => {
    const store = new SessionStore(join(mountPoint, 'state.db'));
    try {
      store.createSession({ sessionId: 'kept', cwd: '/p' });
      const filler = fillDisk();
      const big = 'x'.repeat(512 * 1024);
      expect(storageCode(() => store.appendMessages('kept', [{ role: 'user', content: big }]))).toBe('storage_full');
      expect(storageCode(() => store.createSession({ sessionId: `new-${big.slice(0, 200_000)}`, cwd: big }))).toBe('storage_full');
      expect(store.loadMessages('kept')).toEqual([]);

      rmSync(filler);
      store.appendMessages('kept', [{ role: 'user', content: 'after' }]);
      expect(store.loadMessages('kept')).toEqual([{ role: 'user', content: 'after' }]);
    } finally {
      store.close();
    }
  });
});
