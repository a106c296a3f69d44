import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protectedMounts } from '../../src/tools/protected-mounts.js';
import { holdPlaceholders, removeStalePlaceholders } from '../../src/tools/protected-placeholders.js';

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-mounts-'));
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

describe('protected mount set', () => {
  it('covers what redirects git or runs code in every git folder it leads to, not its data', () => {
    const project = repo();
    execFileSync('git', ['-C', project, 'config', 'core.hooksPath', '.githooks-custom']);
    execFileSync('git', ['-C', project, 'config', 'include.path', '../shared.gitconfig']);
    writeFileSync(join(project, 'shared.gitconfig'), '[alias]\n');
    mkdirSync(join(project, '.githooks-custom'));
    // A worktree-style checkout inside the project: a `.git` file pointing at a git folder elsewhere.
    const elsewhere = repo();
    mkdirSync(join(project, 'checkout'));
    writeFileSync(join(project, 'checkout', '.git'), `gitdir: ${join(elsewhere, '.git')}\n`);
    const mounts = protectedMounts([project], { maxAgeMs: 0 });
    for (const path of ['.git/config', '.git/hooks', '.githooks-custom', 'shared.gitconfig', 'checkout/.git']) expect(mounts.readOnly, path).toContain(join(project, path));
    expect(mounts.readOnly).toContain(join(elsewhere, '.git', 'config'));
    for (const path of ['.git/objects', '.git/refs', '.git/HEAD', '.git/index']) expect(mounts.readOnly).not.toContain(join(project, path));
    const commondir = mounts.placeholders.find((spec) => spec.path === join(project, '.git', 'commondir'));
    expect(commondir).toEqual({ path: join(project, '.git', 'commondir'), kind: 'file', content: '.\n' });
    expect(mounts.placeholders.map((spec) => spec.path)).toEqual(expect.arrayContaining([join(project, '.envrc'), join(project, '.claude', 'settings.json')]));
  });

  it('with wholeGitDirs, binds every git folder it leads to as a whole, and holds nothing inside them', () => {
    const project = repo();
    const elsewhere = repo();
    mkdirSync(join(project, 'checkout'));
    writeFileSync(join(project, 'checkout', '.git'), `gitdir: ${join(elsewhere, '.git')}\n`);
    const mounts = protectedMounts([project], { maxAgeMs: 0, wholeGitDirs: true });
    for (const gitDir of [join(project, '.git'), join(elsewhere, '.git')]) {
      expect(mounts.readOnly).toContain(gitDir);
      // The folder is the mount point: a file inside is not bound again, nor held by a stand-in.
      expect(mounts.readOnly.filter((path) => path.startsWith(`${gitDir}/`))).toEqual([]);
      expect(mounts.placeholders.filter((spec) => spec.path.startsWith(`${gitDir}/`))).toEqual([]);
    }
    expect(mounts.readOnly).toContain(join(project, 'checkout', '.git'));
    // The project's own protected names are as without it.
    expect(mounts.placeholders.map((spec) => spec.path)).toContain(join(project, '.envrc'));
  });

  it('binds a folder once, not also what it holds (a file there may be replaced by a rename meanwhile); a link inside stays', () => {
    const project = repo();
    const mine = mkdtempSync(join(tmpdir(), 'plaited-user-folder-'));
    writeFileSync(join(mine, 'trusted-configs.json'), '{}');
    symlinkSync(join(project, 'elsewhere.json'), join(mine, 'link.json'));
    writeFileSync(join(project, 'elsewhere.json'), '{}');
    const mounts = protectedMounts([project], { maxAgeMs: 0, extraReadOnly: [mine, join(mine, 'trusted-configs.json'), join(mine, 'link.json')] });
    expect(mounts.readOnly).toContain(mine);
    expect(mounts.readOnly).not.toContain(join(mine, 'trusted-configs.json'));
    expect(mounts.readOnly).toContain(join(mine, 'link.json'));
    // Inside the project nothing changes: its git folder is not read-only, so its config is bound itself.
    expect(mounts.readOnly).toContain(join(project, '.git', 'config'));
  });

  it('covers the repository a project folder lies in', () => {
    const outer = repo();
    const project = join(outer, 'packages', 'app');
    mkdirSync(project, { recursive: true });
    expect(protectedMounts([project], { maxAgeMs: 0 }).readOnly).toContain(join(outer, '.git', 'config'));
  });
});

describe('placeholders', () => {
  it('are empty folders without write bits (a file inside .git) while held, and gone after the last release', async () => {
    const project = repo();
    const specs = protectedMounts([project], { maxAgeMs: 0 }).placeholders;
    const first = await holdPlaceholders(specs);
    const second = await holdPlaceholders(specs);
    expect(lstatSync(join(project, '.envrc')).isDirectory()).toBe(true);
    expect(lstatSync(join(project, '.envrc')).mode & 0o777).toBe(0o555);
    expect(readFileSync(join(project, '.git', 'commondir'), 'utf8')).toBe('.\n');
    // git treats the stand-in as "no change".
    expect(execFileSync('git', ['-C', project, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
    await first.release();
    expect(existsSync(join(project, '.envrc'))).toBe(true);
    await second.release();
    for (const path of ['.envrc', '.claude', '.git/commondir', '.vscode']) expect(existsSync(join(project, path)), path).toBe(false);
  });

  it('left by a killed run go at the next start; a user folder or file of the same name stays', () => {
    const project = repo();
    mkdirSync(join(project, '.envrc'), { mode: 0o555 });
    chmodSync(join(project, '.envrc'), 0o555);
    writeFileSync(join(project, '.git', 'commondir'), '.\n', { mode: 0o444 });
    chmodSync(join(project, '.git', 'commondir'), 0o444);
    mkdirSync(join(project, '.vscode'));
    writeFileSync(join(project, '.vscode', 'settings.json'), '{}');
    writeFileSync(join(project, '.npmrc'), 'registry=x\n');
    const removed = removeStalePlaceholders(project);
    expect(removed.sort()).toEqual([join(project, '.envrc'), join(project, '.git', 'commondir')]);
    expect(readFileSync(join(project, '.npmrc'), 'utf8')).toBe('registry=x\n');
    expect(existsSync(join(project, '.vscode', 'settings.json'))).toBe(true);
  });
});
