import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureFolder } from '../../src/storage/ensure-folder.js';

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
});
