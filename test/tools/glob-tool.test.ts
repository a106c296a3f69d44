import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool } from '../../src/tools/glob-tool.js';
import { createWorkspace, runTool, textOf, toolContext, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
  for (const file of ['src/b.ts', 'src/a.ts', 'src/deep/c.ts', 'src/readme.md', '.github/ci.ts', 'node_modules/pkg/index.ts', '.git/hooks/x.ts']) {
    await mkdir(path.dirname(path.join(ws.cwd, file)), { recursive: true });
    await writeFile(path.join(ws.cwd, file), file);
  }
});
afterEach(async () => {
  await ws.cleanup();
});

describe('glob', () => {
  it('is a read tool of kind search', () => {
    expect(globTool).toMatchObject({ name: 'glob', risk: 'read', kind: 'search' });
    expect(globTool.title?.({ pattern: '**/*.ts' })).toBe('Find **/*.ts');
  });

  it('lists matching files relative to cwd, sorted, skipping node_modules and .git, keeping dotfolders', async () => {
    const result = await runTool(globTool, { pattern: '**/*.ts' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result).split('\n')).toEqual(['.github/ci.ts', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts']);
  });

  it('searches below a given path, still answering with cwd-relative paths', async () => {
    const result = await runTool(globTool, { pattern: '*.ts', path: 'src' }, toolContext(ws.runtime));
    expect(textOf(result).split('\n')).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('says so when nothing matches', async () => {
    const result = await runTool(globTool, { pattern: '**/*.rs' }, toolContext(ws.runtime));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('No files match "**/*.rs" in ..');
  });

  it('caps results at 1000 with a note', async () => {
    await mkdir(path.join(ws.cwd, 'many'));
    await Promise.all(
      Array.from({ length: 1005 }, (_, i) => writeFile(path.join(ws.cwd, 'many', `f${String(i).padStart(4, '0')}.txt`), '')),
    );
    const lines = textOf(await runTool(globTool, { pattern: 'many/*.txt' }, toolContext(ws.runtime))).split('\n');
    expect(lines).toHaveLength(1001);
    expect(lines[999]).toBe('many/f0999.txt');
    expect(lines[1000]).toBe('… 5 more files not shown (1000 of 1005); use a narrower pattern or path.');
  });

  it('refuses a path outside the workspace, and patterns that climb out', async () => {
    await writeFile(path.join(ws.outside, 'secret.ts'), '');
    await symlink(ws.outside, path.join(ws.cwd, 'out-link'));
    const cases = [
      { pattern: '*.ts', path: path.relative(ws.cwd, ws.outside) },
      { pattern: '*', path: '/etc' },
      { pattern: '*', path: '/etc/passwd' },
      { pattern: '*.ts', path: 'out-link' },
      { pattern: '../**/*.ts' },
      { pattern: `${ws.outside}/*.ts` },
    ];
    for (const args of cases) {
      const result = await runTool(globTool, args, toolContext(ws.runtime));
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result)).not.toContain('secret.ts');
    }
  });

  it('never lists files from outside through brace expansion', async () => {
    await writeFile(path.join(ws.outside, 'secret.ts'), '');
    const up = path.basename(ws.outside);
    for (const pattern of [`{..,src}/{${up},deep}/*.ts`, `{src,..}/**/*.ts`]) {
      const result = await runTool(globTool, { pattern }, toolContext(ws.runtime));
      expect(textOf(result), pattern).not.toContain('secret.ts');
    }
  });

  it('does not descend into a symlinked folder that points outside', async () => {
    await writeFile(path.join(ws.outside, 'secret.ts'), '');
    await symlink(ws.outside, path.join(ws.cwd, 'src', 'out-link'));
    const result = await runTool(globTool, { pattern: '**/secret.ts' }, toolContext(ws.runtime));
    expect(textOf(result)).toBe('No files match "**/secret.ts" in ..');
  });

  it('lists files in an allowed extra root, as absolute paths', async () => {
    await writeFile(path.join(ws.outside, 'shared.ts'), '');
    const result = await runTool(
      globTool,
      { pattern: '*.ts', path: ws.outside },
      toolContext(ws.runtime, { allowedRoots: [ws.outside] }),
    );
    expect(textOf(result)).toBe(path.join(ws.outside, 'shared.ts'));
  });
});
