import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { transpileCacheDir } from '../../../src/config/transpile-cache.js';
import { trustConfigFor } from '../../helpers/trust-config.js';
import { sandboxSchema } from '../../../src/config/schema.js';
import { createLocalRuntime } from '../../../src/tools/local-runtime.js';
import type { Runtime } from '../../../src/contracts/runtime.js';
import { createSandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { createSandboxedRuntime } from '../../../src/adapters/sandbox/sandboxed-runtime.js';
import { removeStalePlaceholders } from '../../../src/tools/protected-placeholders.js';
import { UNCREATABLE_NAMES } from '../../../src/tools/protected-paths.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

/**
 * The self-reconfiguration battery against the command sandbox with the project
 * writable (accept-edits): a command or a file tool must not change, create, move
 * or redirect anything that runs or grants permissions at the next start.
 */

let world: SandboxWorld;
let runtime: Runtime;
let before: Map<string, string>;

const EXISTING = ['.plaited/config.json', '.git/config', '.mcp.json', '.vscode/settings.json', '.envrc', 'AGENTS.md'];

beforeAll(async () => {
  requirePrograms('bwrap', 'socat', 'git');
  world = await createSandboxWorld();
  execFileSync('git', ['init', '-q', world.project]);
  mkdirSync(join(world.project, '.plaited'), { recursive: true });
  mkdirSync(join(world.project, '.vscode'), { recursive: true });
  writeFileSync(join(world.project, '.plaited', 'config.json'), '{"tools":{"allow":[]}}\n');
  writeFileSync(join(world.project, '.mcp.json'), '{"mcpServers":{}}\n');
  writeFileSync(join(world.project, '.vscode', 'settings.json'), '{}\n');
  writeFileSync(join(world.project, '.envrc'), 'export A=1\n');
  writeFileSync(join(world.project, 'AGENTS.md'), '# Rules\n');
  before = new Map(EXISTING.map((path) => [path, readFileSync(join(world.project, path), 'utf8')]));
  const policy = createSandboxPolicy({
    config: sandboxSchema.parse({ commands: true, limits: { timeoutMs: 20_000 } }),
    cwd: world.project,
    home: world.home,
    allowEdits: true,
  });
  runtime = createSandboxedRuntime(createLocalRuntime(world.project), policy, { mode: 'isolated' });
});

afterAll(async () => {
  await resetSandboxRuntime();
  await world?.close();
});

/** Runs `command` in the sandbox; a violation report is as good as a failed write. */
async function attempt(command: string): Promise<string> {
  return runtime.exec(command, { env: { HOME: world.home } }).then(
    (result) => result.output,
    (error: unknown) => (error as Error).message,
  );
}

function projectEntries(): string[] {
  return readdirSync(world.project).sort();
}

describe('command sandbox, project writable: start-up files stay as they were', () => {
  const targets = [
    '.plaited/config.ts',
    '.plaited/config.mjs',
    '.plaited/config.json',
    '.git/hooks/pre-commit',
    '.git/config',
    '.mcp.json',
    '.vscode/settings.json',
    '.vscode/tasks.json',
    '.envrc',
  ];

  it.each(targets)('bash cannot write %s (existing or new)', async (target) => {
    await attempt(`mkdir -p "$(dirname ${target})"; printf 'pwned' > ${target}; printf 'pwned' >> ${target}`);
    const path = join(world.project, target);
    if (before.has(target)) expect(readFileSync(path, 'utf8')).toBe(before.get(target));
    else expect(existsSync(path) && readFileSync(path, 'utf8').includes('pwned')).toBe(false);
  });

  it('cannot get around them by links, renames, deletion or git itself', async () => {
    await attempt('ln -s .git/hooks h && printf pwned > h/post-checkout');
    await attempt('ln -s .plaited p && printf pwned > p/config.ts');
    await attempt('mv .plaited .plaited-old; mkdir -p .plaited && printf pwned > .plaited/config.ts');
    await attempt('mv .git .git-old; git init -q . && printf pwned > .git/hooks/pre-commit');
    await attempt('rm -rf .vscode .mcp.json .git/hooks');
    await attempt('git config core.hooksPath /tmp; git config alias.st "!touch /tmp/pwned"');
    expect(existsSync(join(world.project, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(join(world.project, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(world.project, '.plaited', 'config.ts'))).toBe(false);
    expect(existsSync(join(world.project, '.plaited-old'))).toBe(false);
    expect(existsSync(join(world.project, '.git-old'))).toBe(false);
    for (const [path, text] of before) if (path !== 'AGENTS.md') expect(readFileSync(join(world.project, path), 'utf8'), path).toBe(text);
  });

  it('a nested repository keeps its hooks too', async () => {
    execFileSync('git', ['init', '-q', join(world.project, 'libs', 'nested')]);
    const nested = createSandboxedRuntime(
      createLocalRuntime(world.project),
      createSandboxPolicy({ config: sandboxSchema.parse({ commands: true }), cwd: world.project, home: world.home, allowEdits: true }),
      { mode: 'isolated' },
    );
    await nested.exec('printf pwned > libs/nested/.git/hooks/pre-commit; git -C libs/nested config core.hooksPath /tmp', { env: { HOME: world.home } }).catch(() => undefined);
    expect(existsSync(join(world.project, 'libs', 'nested', '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(world.project, 'libs', 'nested', '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });

  it("the user's own folder stays read-only even where the config lets commands write: no planted trust or transpiled config", async () => {
    const configHome = process.env.XDG_CONFIG_HOME!;
    const cache = transpileCacheDir();
    expect(cache).toBe(join(configHome, 'plaited-agent', 'transpiled'));
    const wide = createSandboxedRuntime(
      createLocalRuntime(world.project),
      createSandboxPolicy({ config: sandboxSchema.parse({ commands: true, security: { allowWrite: [configHome] } }), cwd: world.project, home: world.home }),
      { mode: 'isolated' },
    );
    const run = (command: string) => wide.exec(command, { env: { HOME: world.home } }).then((result) => result.output, (error: unknown) => (error as Error).message);
    await run(`printf pwned > ${cache}/.plaited-config.0123abcd.mjs; printf '{}' > ${configHome}/plaited-agent/trusted-configs.json; printf ok > ${configHome}/beside.txt`);
    expect(readdirSync(cache as string)).not.toContain('.plaited-config.0123abcd.mjs');
    expect(existsSync(join(configHome, 'plaited-agent', 'trusted-configs.json')) && readFileSync(join(configHome, 'plaited-agent', 'trusted-configs.json'), 'utf8')).not.toBe('{}');
    // The write the config allows still happens: only the user's folder is held.
    expect(readFileSync(join(configHome, 'beside.txt'), 'utf8')).toBe('ok');
  });

  it('file tools are refused there even when the user approved the write', async () => {
    for (const target of ['.plaited/config.ts', '.git/hooks/pre-commit', '.mcp.json', 'sub/.git/hooks/pre-push']) {
      await expect(runtime.writeFile(join(world.project, target), 'pwned'), target).rejects.toThrow(/blocked by sandbox: write to/);
    }
  });

  it('ordinary work goes on: project files, rules files and git commits', async () => {
    const output = await attempt(
      'echo ok > notes.txt && echo "# more" >> AGENTS.md && git -c user.email=a@b -c user.name=a add notes.txt && git -c user.email=a@b -c user.name=a commit -qm x && git log --oneline | wc -l',
    );
    expect(output.trim()).toBe('1');
    expect(readFileSync(join(world.project, 'notes.txt'), 'utf8')).toBe('ok\n');
    expect(readFileSync(join(world.project, 'AGENTS.md'), 'utf8')).toBe('# Rules\n# more\n');
  });
});

describe('placeholders in the user project', () => {
  it('while a command runs only empty folders named after protected names appear (git sees none), and none remain after it', async () => {
    const entries = projectEntries();
    const statusBefore = await attempt('git status --porcelain');
    const during = (await attempt('ls -A')).trim().split('\n').sort();
    // A missing protected name needs a mount point to stay uncreatable (README "Sandbox").
    const added = during.filter((name) => !entries.includes(name));
    expect(entries.every((name) => during.includes(name))).toBe(true);
    for (const name of added) expect(UNCREATABLE_NAMES.some((protectedName) => protectedName.split('/')[0] === name), name).toBe(true);
    expect(await attempt('git status --porcelain')).toBe(statusBefore);
    expect(projectEntries()).toEqual(entries);
    for (const name of ['.bashrc', '.profile', '.gitconfig', '.idea', '.claude', '.ripgreprc', '.zshrc']) {
      expect(existsSync(join(world.project, name)), name).toBe(false);
    }
    // A workspace search finds nothing rather than failing on a placeholder (.env is unreadable on purpose).
    const search = await attempt('grep -r --exclude=".env*" "no-such-text-anywhere" . ; echo "exit=$?"');
    expect(search).toContain('exit=1');
    expect(search).not.toContain('Permission denied');
  });

  it('placeholders a killed run left are removed at the next start, a user file never', () => {
    const project = join(world.root, 'killed');
    mkdirSync(join(project, '.plaited'), { recursive: true });
    mkdirSync(join(project, '.claude', 'commands'), { recursive: true });
    mkdirSync(join(project, '.plaited', 'config.mjs'));
    for (const path of ['.plaited/config.ts', '.bashrc', '.mcp.json']) {
      writeFileSync(join(project, path), '');
      chmodSync(join(project, path), 0o444);
    }
    writeFileSync(join(project, '.profile'), 'user content\n');
    writeFileSync(join(project, '.zshrc'), '');
    const removed = removeStalePlaceholders(project).map((path) => path.slice(project.length + 1)).sort();
    expect(removed).toEqual(['.bashrc', '.claude', '.claude/commands', '.mcp.json', '.plaited/config.mjs', '.plaited/config.ts']);
    expect(readFileSync(join(project, '.profile'), 'utf8')).toBe('user content\n');
    expect(existsSync(join(project, '.zshrc'))).toBe(true);
  });

  it('an empty config file (a placeholder) is no config: the next one in line loads', async () => {
    const project = join(world.root, 'empty-config');
    mkdirSync(join(project, '.plaited'), { recursive: true });
    writeFileSync(join(project, '.plaited', 'config.ts'), '');
    writeFileSync(join(project, '.plaited', 'config.json'), '{"tools":{"deny":["bash"]}}');
    await trustConfigFor({ cwd: project });
    const loaded = await loadConfig({ cwd: project });
    expect(loaded.path).toBe(join(project, '.plaited', 'config.json'));
    expect(loaded.config.tools.deny).toEqual(['bash']);
  });
});
