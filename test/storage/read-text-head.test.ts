import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTextHead } from '../../src/storage/read-text-head.js';

describe('readTextHead', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaited-text-head-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a small file whole, and cuts a longer one at the cap, never in the middle of a character', async () => {
    writeFileSync(join(dir, 'small.md'), 'héllo\n');
    expect(await readTextHead(join(dir, 'small.md'), 1024)).toEqual({ text: 'héllo\n', size: 7, truncated: false });
    // "é" is two bytes: a cap of 2 falls between them.
    expect(await readTextHead(join(dir, 'small.md'), 2)).toEqual({ text: 'h', size: 7, truncated: true });
    writeFileSync(join(dir, 'empty.md'), '');
    expect(await readTextHead(join(dir, 'empty.md'), 10)).toEqual({ text: '', size: 0, truncated: false });
  });

  it('reads UTF-16 with a byte order mark (a Windows editor\'s "Unicode") as text, and drops a UTF-8 one', async () => {
    const text = '# Règles\nAlways be kind.\n';
    writeFileSync(join(dir, 'le.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    writeFileSync(join(dir, 'be.md'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    writeFileSync(join(dir, 'bom.md'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    for (const name of ['le.md', 'be.md', 'bom.md']) expect((await readTextHead(join(dir, name), 1024)).text, name).toBe(text);
    // Cut inside a UTF-16 character: the half is held back.
    expect((await readTextHead(join(dir, 'le.md'), 5)).text).toBe('#');
  });

  it("fails with fs's own codes for a folder, a symlink loop and a missing file, and ENOTFILE for a pipe", async () => {
    mkdirSync(join(dir, 'folder.md'));
    symlinkSync('loop.md', join(dir, 'loop.md'));
    await expect(readTextHead(join(dir, 'folder.md'), 10)).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(readTextHead(join(dir, 'loop.md'), 10)).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(readTextHead(join(dir, 'missing.md'), 10)).rejects.toMatchObject({ code: 'ENOENT' });
    // A named pipe with no writer: refused at once, never waited on.
    execFileSync('mkfifo', [join(dir, 'pipe.md')]);
    await expect(readTextHead(join(dir, 'pipe.md'), 10)).rejects.toMatchObject({ code: 'ENOTFILE' });
  });
});
