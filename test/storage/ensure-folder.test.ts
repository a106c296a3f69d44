import { existsSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureFolder, ensureFolderAsync } from '../../src/storage/ensure-folder.js';

describe('ensureFolder', () => {
  it('creates every missing level, and is a no-op on an existing folder', () => {
    const root = mkdtempSync(join(tmpdir(), 'plaited-ensure-'));
    ensureFolder(join(root, 'a', 'b', 'c'));
    expect(statSync(join(root, 'a', 'b', 'c')).isDirectory()).toBe(true);
    ensureFolder(join(root, 'a', 'b', 'c'));
  });

  it('fails at once where Node\'s recursive mkdir spins forever (/proc) and under a file', () => {
    expect(() => ensureFolder('/proc/self/.plaited')).toThrow();
    expect(() => ensureFolder('/proc/.plaited/deeper')).toThrow();
    const root = mkdtempSync(join(tmpdir(), 'plaited-ensure-'));
    writeFileSync(join(root, 'file'), 'x');
    expect(() => ensureFolder(join(root, 'file', 'sub'))).toThrow(/ENOTDIR/);
    expect(existsSync(join(root, 'file', 'sub'))).toBe(false);
  });

  it('gives the levels it makes the mode asked for, as recursive mkdir does', () => {
    const root = mkdtempSync(join(tmpdir(), 'plaited-ensure-'));
    ensureFolder(join(root, 'a', 'b'), 0o700);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'a', 'b')).mode & 0o777).toBe(0o700);
  });

  it('stops at a link to nowhere instead of making its target', () => {
    const root = mkdtempSync(join(tmpdir(), 'plaited-ensure-'));
    symlinkSync(join(root, 'gone'), join(root, 'dangling'));
    expect(() => ensureFolder(join(root, 'dangling', 'sub'))).toThrow(/ENOENT/);
    expect(existsSync(join(root, 'gone'))).toBe(false);
  });
});

describe('ensureFolderAsync', () => {
  it('creates every missing level with the mode asked for, and is a no-op on an existing folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'plaited-ensure-'));
    await ensureFolderAsync(join(root, 'a', 'b', 'c'), 0o700);
    expect(statSync(join(root, 'a', 'b', 'c')).mode & 0o777).toBe(0o700);
    await ensureFolderAsync(join(root, 'a', 'b', 'c'));
  });

  it('rejects at once under /proc, under a file and at a link to nowhere', async () => {
    await expect(ensureFolderAsync('/proc/.plaited/deeper')).rejects.toMatchObject({ code: 'ENOENT' });
    const root = mkdtempSync(join(tmpdir(), 'plaited-ensure-'));
    writeFileSync(join(root, 'file'), 'x');
    await expect(ensureFolderAsync(join(root, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    symlinkSync(join(root, 'gone'), join(root, 'dangling'));
    await expect(ensureFolderAsync(join(root, 'dangling', 'sub'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
