import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveWorkspacePath } from '../../src/tools/workspace-path.js';
import { PathOutsideWorkspaceError } from '../../src/tools/path-outside-workspace-error.js';
import { createWorkspace, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

async function refusal(input: string, roots: string[] = []): Promise<PathOutsideWorkspaceError> {
  const error = await resolveWorkspacePath(input, ws.cwd, roots).then(
    (resolved) => {
      throw new Error(`expected a refusal for ${input}, got ${resolved}`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PathOutsideWorkspaceError);
  return error as PathOutsideWorkspaceError;
}

describe('resolveWorkspacePath', () => {
  it('resolves relative paths against cwd, existing or not', async () => {
    await writeFile(path.join(ws.cwd, 'a.txt'), 'a');
    expect(await resolveWorkspacePath('a.txt', ws.cwd, [])).toBe(path.join(ws.cwd, 'a.txt'));
    expect(await resolveWorkspacePath('new/deep/b.txt', ws.cwd, [])).toBe(path.join(ws.cwd, 'new/deep/b.txt'));
    expect(await resolveWorkspacePath('.', ws.cwd, [])).toBe(ws.cwd);
    expect(await resolveWorkspacePath(path.join(ws.cwd, 'x/../a.txt'), ws.cwd, [])).toBe(path.join(ws.cwd, 'a.txt'));
  });

  it('refuses .. that climbs out, with a typed error carrying the path and roots', async () => {
    const error = await refusal('../x');
    expect(error.code).toBe('path_outside_workspace');
    expect(error.path).toBe('../x');
    expect(error.roots).toEqual([ws.cwd]);
    expect(error.message).toContain('"../x"');
    expect(error.message).toContain('outside the workspace');
    expect(PathOutsideWorkspaceError.isInstance(error)).toBe(true);
  });

  it('refuses absolute paths outside, and a sibling folder sharing the prefix', async () => {
    await refusal('/etc/passwd');
    await mkdir(`${ws.cwd}-evil`, { recursive: true });
    try {
      await refusal(`${ws.cwd}-evil/file`);
    } finally {
      await rm(`${ws.cwd}-evil`, { recursive: true, force: true });
    }
  });

  it('refuses a symlink inside cwd that points outside, and files below it', async () => {
    await writeFile(path.join(ws.outside, 'secret.txt'), 'secret');
    await symlink(ws.outside, path.join(ws.cwd, 'link'));
    const error = await refusal('link/secret.txt');
    expect(error.resolvedPath).toBe(path.join(ws.outside, 'secret.txt'));
    await refusal('link/not-yet-there.txt');
    await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.cwd, 'file-link'));
    await refusal('file-link');
  });

  it('refuses a dangling symlink whose target (which a write would create) is outside', async () => {
    await symlink(path.join(ws.outside, 'created-by-write.txt'), path.join(ws.cwd, 'dangling'));
    await refusal('dangling');
    await symlink(path.join(ws.outside, 'missing-dir'), path.join(ws.cwd, 'dangling-dir'));
    await refusal('dangling-dir/new.txt');
  });

  it('accepts a symlink that stays inside cwd', async () => {
    await mkdir(path.join(ws.cwd, 'real'));
    await writeFile(path.join(ws.cwd, 'real', 'f.txt'), 'f');
    await symlink(path.join(ws.cwd, 'real'), path.join(ws.cwd, 'alias'));
    expect(await resolveWorkspacePath('alias/f.txt', ws.cwd, [])).toBe(path.join(ws.cwd, 'alias', 'f.txt'));
  });

  it('accepts paths under an allowed extra root, and nothing else outside', async () => {
    const allowed = path.join(ws.outside, 'allowed');
    await mkdir(allowed);
    expect(await resolveWorkspacePath(path.join(allowed, 'x.txt'), ws.cwd, [allowed])).toBe(path.join(allowed, 'x.txt'));
    const error = await refusal(path.join(ws.outside, 'other.txt'), [allowed]);
    expect(error.roots).toEqual([ws.cwd, allowed]);
  });

  it('refuses a symlink loop instead of hanging', async () => {
    await symlink(path.join(ws.cwd, 'loop-b'), path.join(ws.cwd, 'loop-a'));
    await symlink(path.join(ws.cwd, 'loop-a'), path.join(ws.cwd, 'loop-b'));
    await refusal('loop-a/x');
  });

  it('expands ~ to the home folder (refused unless allowed)', async () => {
    const error = await refusal('~/.ssh/id_rsa');
    expect(error.path).toBe('~/.ssh/id_rsa');
    expect(error.resolvedPath.endsWith(path.join('.ssh', 'id_rsa'))).toBe(true);
    expect(os.homedir().startsWith(ws.cwd)).toBe(false);
  });
});
