import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { A2aTaskStore } from '../../src/storage/a2a-task-store.js';
import { SessionStore } from '../../src/storage/session-store.js';
import { ensureStateFolder } from '../../src/storage/state-folder.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { storageWriteError } from '../../src/storage/storage-write-error.js';

const dir = mkdtempSync(join(tmpdir(), 'plaited-store-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function failure(open: () => { close(): void }): StorageError {
  try {
    open().close();
  } catch (error) {
    if (StorageError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the store opened');
}

describe('a store file that cannot be opened names its cause and fix, and is left as it was', () => {
  it('a file that is not a database, or a truncated one, is damaged: move it aside or restore it', () => {
    const notDb = join(dir, 'not-a-db.db');
    writeFileSync(notDb, 'plain text that is long enough to be read as a header, '.repeat(20));
    const truncated = join(dir, 'truncated.db');
    new SessionStore(truncated).close();
    truncateSync(truncated, 100);
    for (const file of [notDb, truncated]) {
      const before = readFileSync(file);
      for (const [what, open] of [
        ['session store', () => new SessionStore(file)],
        ['A2A task store', () => new A2aTaskStore(file)],
      ] as const) {
        const error = failure(open);
        expect(error, `${what} ${file}`).toMatchObject({ code: 'open_failed', path: file });
        expect(error.message).toMatch(new RegExp(`^${what} ${file} is damaged \\((file is not a database|database disk image is malformed)\\)`));
        expect(error.message).toContain(`mv "${file}" "${file}.damaged"`);
        expect(error.message).toContain('restore it from a backup');
      }
      expect(readFileSync(file).equals(before), `${file} is unchanged`).toBe(true);
    }
  });

  it('a file that cannot be opened at all (a folder in its place) names the permissions, not damage', () => {
    const folder = join(dir, 'a-folder.db');
    mkdirSync(folder);
    const error = failure(() => new SessionStore(folder));
    expect(error).toMatchObject({ code: 'open_failed', path: folder });
    expect(error.message).toContain(`cannot open session store ${folder}`);
    expect(error.message).toContain('readable and writable by this user');
    expect(error.message).not.toContain('damaged');
  });

  it('a page found damaged after the file opened names the file and the fix, on reads and writes', () => {
    const file = join(dir, 'damaged-page.db');
    const store = new SessionStore(file);
    for (let i = 0; i < 200; i++) store.createSession({ sessionId: `s${i}`, cwd: `/project/${'x'.repeat(200)}/${i}` });
    store.close();
    // The sessions table's root page, overwritten: the header (page 1) stays sound, so the file opens.
    const raw = new Database(file);
    const root = (raw.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").get() as { rootpage: number }).rootpage;
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.close();
    const bytes = readFileSync(file);
    bytes.fill(0xff, (root - 1) * pageSize, (root - 1) * pageSize + 64);
    writeFileSync(file, bytes);

    const reopened = new SessionStore(file);
    try {
      for (const use of [() => reopened.listSessions(), () => reopened.createSession({ sessionId: 'new', cwd: '/p' })]) {
        const error = failure(() => ({ close: () => void use() }));
        expect(error).toMatchObject({ code: 'open_failed', path: file });
        expect(error.message).toContain(`session store ${file} is damaged (database disk image is malformed)`);
        expect(error.message).toContain(`mv "${file}" "${file}.damaged"`);
      }
    } finally {
      reopened.close();
    }
  });

  it('a file where the state folder should be is named as such (not "a folder you can write"), and left as it is', () => {
    const project = join(dir, 'state-is-a-file');
    mkdirSync(join(project, '.plaited'), { recursive: true });
    writeFileSync(join(project, '.plaited', 'state'), 'mine');
    const state = join(project, '.plaited', 'state');
    expect(() => ensureStateFolder(project)).toThrow(
      `${state}, where plaited-agent keeps this project's sessions, is a file, not a folder: move it aside (mv "${state}" "${state}.moved") and start again`,
    );
    expect(readFileSync(state, 'utf8')).toBe('mine');
  });

  it('a write that meets a damaged file says so, with the same fix', () => {
    const corrupt = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    const error = storageWriteError(corrupt, '/p/state.db', 's1');
    expect(error).toMatchObject({ code: 'write_failed', path: '/p/state.db', sessionId: 's1' });
    expect((error as Error).message).toContain('the file is damaged (database disk image is malformed)');
    expect((error as Error).message).toContain('mv "/p/state.db" "/p/state.db.damaged"');
    const io = storageWriteError(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), '/p/state.db', 's1');
    expect((io as Error).message).toMatch(/disk I\/O error \(SQLITE_IOERR_WRITE\); nothing of it was stored: .*send the prompt again$/);
  });
});
