import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProtectedPath, protectLoadedFile } from '../../src/tools/protected-paths.js';
import { protectedMounts } from '../../src/tools/protected-mounts.js';

const existingProtectedPaths = (cwd: string) => protectedMounts([cwd], { maxAgeMs: 0 }).readOnly;
import { matchesPattern } from '../../src/agent/tool-policy.js';

function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-protected-'));
  mkdirSync(join(cwd, '.plaited'));
  mkdirSync(join(cwd, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(cwd, '.git', 'config'), '');
  writeFileSync(join(cwd, '.mcp.json'), '{}');
  writeFileSync(join(cwd, 'README.md'), '');
  return cwd;
}

describe('protected paths', () => {
  it('knows config, hooks and start-up files in any spelling, and leaves ordinary files alone', () => {
    const cwd = project();
    for (const path of ['.plaited/config.ts', '.plaited/config.cjs', '.plaited/helpers.ts', 'x/../.git/hooks/pre-commit', '.GIT/config', '.vscode/', '~/.bashrc', `${cwd}/.envrc`, 'nested/.git/hooks/x']) {
      expect(isProtectedPath(path, cwd), path).toBe(true);
    }
    for (const path of ['README.md', 'src/git.ts', '.plaited/state.db', '.plaited/memory/log.md', '.plaited/skills/x/run.ts', 'AGENTS.md', '.gitignore', 'config.ts']) {
      expect(isProtectedPath(path, cwd), path).toBe(false);
    }
  });

  it('follows symlinks, also into a folder for a file not yet created', () => {
    const cwd = project();
    symlinkSync(join(cwd, '.git'), join(cwd, 'g'));
    symlinkSync('.plaited/config.mts', join(cwd, 'cfg'));
    expect(isProtectedPath('g/hooks/post-merge', cwd)).toBe(true);
    expect(isProtectedPath('cfg', cwd)).toBe(true);
  });

  it('protects files loaded at start wherever they are', () => {
    const cwd = project();
    const adapter = join(cwd, 'tools', 'my-adapter.ts');
    mkdirSync(join(cwd, 'tools'));
    writeFileSync(adapter, 'export default {}');
    expect(isProtectedPath('tools/my-adapter.ts', cwd)).toBe(false);
    protectLoadedFile(adapter);
    expect(isProtectedPath('tools/my-adapter.ts', cwd)).toBe(true);
    expect(existingProtectedPaths(cwd)).toContain(adapter);
  });

  it('lists the existing ones for the walls (a .git folder by its hooks and config), repositories at any depth', () => {
    const cwd = project();
    const listed = existingProtectedPaths(cwd).filter((path) => path.startsWith(cwd));
    expect(listed).toEqual([join(cwd, '.git', 'config'), join(cwd, '.git', 'hooks'), join(cwd, '.mcp.json')]);
    mkdirSync(join(cwd, 'libs', 'sub', '.git', 'hooks'), { recursive: true });
    mkdirSync(join(cwd, 'libs', 'sub', '.vscode'));
    mkdirSync(join(cwd, 'node_modules', 'x', '.git', 'hooks'), { recursive: true });
    mkdirSync(join(cwd, '.git', 'modules', 'vendored', 'hooks'), { recursive: true });
    writeFileSync(join(cwd, '.git', 'modules', 'vendored', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(join(cwd, 'build', 'a', 'b', 'c', 'd', '.git', 'hooks'), { recursive: true });
    expect(existingProtectedPaths(cwd)).toContain(join(cwd, '.git', 'modules', 'vendored', 'hooks'));
    const nested = existingProtectedPaths(cwd).filter((path) => ['libs', 'node_modules', 'build'].some((dir) => path.startsWith(join(cwd, dir))));
    // A package's own `.vscode` is not the user's; its repository is.
    expect(nested).toEqual([
      join(cwd, 'build', 'a', 'b', 'c', 'd', '.git', 'hooks'),
      join(cwd, 'libs', 'sub', '.git', 'hooks'),
      join(cwd, 'libs', 'sub', '.vscode'),
      join(cwd, 'node_modules', 'x', '.git', 'hooks'),
    ]);
  });
});

describe('tool-name patterns (picomatch)', () => {
  it('matches wildcards, braces and literals', () => {
    expect(matchesPattern('mcp__github__create_issue', 'mcp__github__*')).toBe(true);
    expect(matchesPattern('mcp__fs__read_file', 'mcp__{fs,git}__read_*')).toBe(true);
    expect(matchesPattern('mcp__git__write', 'mcp__{fs,git}__read_*')).toBe(false);
    expect(matchesPattern('bash', '*')).toBe(true);
    expect(matchesPattern('write_file', 'write_file')).toBe(true);
    expect(matchesPattern('write_files', 'write_file')).toBe(false);
  });
});
