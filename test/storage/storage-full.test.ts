import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/storage/session-store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { fillDisk, mountSmallTmpfs, unmountSmallTmpfs } from '../helpers/small-tmpfs.js';

/** A real 4 MiB tmpfs (the tests run as root). */
let mountPoint: string;
beforeAll(() => {
  mountPoint = mountSmallTmpfs('4m');
});
afterAll(() => unmountSmallTmpfs(mountPoint));

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
      const filler = fillDisk(mountPoint);
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
