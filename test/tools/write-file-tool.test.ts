import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileTool } from '../../src/tools/write-file-tool.js';
import { createWorkspace, runTool, textOf, toolContext, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe('write_file', () => {
  it('is a write tool of kind edit', () => {
    expect(writeFileTool).toMatchObject({ name: 'write_file', risk: 'write', kind: 'edit', source: 'local' });
    expect(writeFileTool.title?.({ path: 'src/x.ts', content: '' })).toBe('Write src/x.ts');
  });

  it('creates a new file with parent folders; display is a diff from null', async () => {
    const result = await runTool(writeFileTool, { path: 'src/deep/new.ts', content: 'a\nb\n' }, toolContext(ws.runtime));
    const file = path.join(ws.cwd, 'src/deep/new.ts');
    expect(result.isError).toBeFalsy();
    expect(await readFile(file, 'utf8')).toBe('a\nb\n');
    expect(textOf(result)).toBe('Created src/deep/new.ts (2 lines, 4 bytes).');
    expect(result.display).toEqual([{ type: 'diff', path: file, oldText: null, newText: 'a\nb\n' }]);
    expect(result.locations).toEqual([{ path: file }]);
  });

  it('overwrites an existing file; display carries the old text', async () => {
    const file = path.join(ws.cwd, 'x.txt');
    await writeFile(file, 'old\n');
    const result = await runTool(writeFileTool, { path: 'x.txt', content: 'new' }, toolContext(ws.runtime));
    expect(textOf(result)).toBe('Overwrote x.txt (1 lines, 3 bytes).');
    expect(result.display).toEqual([{ type: 'diff', path: file, oldText: 'old\n', newText: 'new' }]);
    expect(await readFile(file, 'utf8')).toBe('new');
  });

  it('fails with an error result when the target is a folder', async () => {
    const result = await runTool(writeFileTool, { path: '.', content: 'x' }, toolContext(ws.runtime));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Cannot write .');
  });

  it('refuses to write outside the workspace: .., absolute, through symlinks', async () => {
    await symlink(ws.outside, path.join(ws.cwd, 'out-link'));
    await symlink(path.join(ws.outside, 'dangling-target.txt'), path.join(ws.cwd, 'dangling.txt'));
    const escapes = [
      path.relative(ws.cwd, path.join(ws.outside, 'a.txt')),
      path.join(ws.outside, 'b.txt'),
      'out-link/c.txt',
      'dangling.txt',
    ];
    for (const target of escapes) {
      const result = await runTool(writeFileTool, { path: target, content: 'pwned' }, toolContext(ws.runtime));
      expect(result.isError, target).toBe(true);
      expect(textOf(result), target).toContain('outside the workspace');
    }
    const leaked = await Promise.all(
      ['a.txt', 'b.txt', 'c.txt', 'dangling-target.txt'].map((name) =>
        readFile(path.join(ws.outside, name), 'utf8').then(
          () => name,
          () => null,
        ),
      ),
    );
    expect(leaked.filter(Boolean)).toEqual([]);
  });

  it('writes into an allowed extra root', async () => {
    const target = path.join(ws.outside, 'allowed.txt');
    const result = await runTool(
      writeFileTool,
      { path: target, content: 'ok' },
      toolContext(ws.runtime, { allowedRoots: [ws.outside] }),
    );
    expect(result.isError).toBeFalsy();
    expect(await readFile(target, 'utf8')).toBe('ok');
  });
});
