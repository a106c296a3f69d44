import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { trustProjectConfig } from '../helpers/trust-config.js';

// Command-line conventions through the real CLI: asked-for output (help, version) on stdout with
// exit 0; errors on stderr with a non-zero exit and nothing on stdout.
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], cwd?: string, env: NodeJS.ProcessEnv = process.env): { status: number | null; stdout: string; stderr: string } {
  if (cwd !== undefined) trustProjectConfig(cwd, args);
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env, input: '', encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A project folder holding `.plaited/<name>` with `source`, and no node_modules anywhere above it. */
function projectWithConfig(name: string, source: string): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-cli-'));
  dirs.push(cwd);
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited', name), source);
  return cwd;
}

describe('CLI conventions', () => {
  it.each([['--help'], ['-h'], ['help']])('%s prints the usage on stdout and exits 0', (flag) => {
    const result = run([flag]);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: plaited-agent/);
    expect(result.stdout).toContain('--adapter');
  });

  it.each([['--version'], ['-v']])('%s prints the package version on stdout and exits 0', (flag) => {
    const result = run([flag]);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('models --help prints its usage on stdout and exits 0', () => {
    const result = run(['models', '--help']);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('models pull');
  });

  // A command's help is its own usage, not the server's (`chat --help` showed the main help).
  it.each([
    [['chat', '--help'], 'chat'],
    [['chat', '-h', '--model', 'openai-compatible:x'], 'chat'],
    ...['chat', 'sessions', 'mcp', 'trust', 'models', 'init', 'doctor'].map((command) => [['help', command], command] as [string[], string]),
    // `sessions help`, as `git remote help` reads: the command's usage, not an action named "help".
    ...['chat', 'sessions', 'mcp', 'trust', 'models', 'init', 'doctor'].map((command) => [[command, 'help'], command] as [string[], string]),
  ])('%j prints the usage of %s on stdout and exits 0', (args, command) => {
    const result = run(args);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage:/);
    expect(result.stdout).toContain(`plaited-agent ${command}`);
    expect(result.stdout).not.toContain('Starts an agent that speaks the Agent Client Protocol');
  });

  it('help for no such command is a usage error naming the one meant', () => {
    const result = run(['help', 'sesions']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("no command 'sesions' to show the help of: did you mean plaited-agent help sessions?");
  });

  it('an unknown flag is an error on stderr (exit 2), with nothing on stdout', () => {
    const result = run(['--no-such-flag']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--no-such-flag');
  });

  it('a usage error is the one line that says what is wrong and where the options are, not buried above the whole usage', () => {
    const result = run(['-p', 'hi', '--output-format', 'jsn']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('plaited-agent: --output-format must be one of text, json, stream-json\nRun plaited-agent --help for the options and commands.\n');
  });

  it.each([
    [['--modle', 'x'], '--modle', 'did you mean --model?'],
    [['-p', 'hi', '--alow', 'bash'], '--alow', 'did you mean --allow?'],
    [['trust', '--revok'], '--revok', 'did you mean --revoke?'],
    [['doctor', '--bogus'], '--bogus', 'plaited-agent doctor --help lists the options'],
    [['models', 'list', '--modle', 'x'], '--modle', 'did you mean --model?'],
  ])('a mistyped flag (%j) names the flag and the one meant, without parseArgs advice about positionals', (args, flag, hint) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`unknown option ${flag}: ${hint}`);
    expect(result.stderr).not.toContain('positional argument');
  });

  it('a port another process holds: the address, and the fix (stop it, or --port)', async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    const { port } = holder.address() as AddressInfo;
    try {
      const result = run(['--transport', 'http', '--port', String(port)], mkdtempSync(join(tmpdir(), 'plaited-cli-')));
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`adapter acp: 127.0.0.1:${port} is already in use`);
      expect(result.stderr).toContain('--port');
    } finally {
      await new Promise((closed) => holder.close(closed));
    }
  });

  it('a mistyped PLAITED_ variable is named with the one meant, instead of being ignored without a word', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-cli-'));
    dirs.push(cwd);
    const env = { ...process.env, PLAITED_STOR: 'postgres://db.internal/agent', PLAITD_AUTH_TOKEN: 'a-token', PLAITED_SOMETHING_ELSE_ENTIRELY: '1' };
    const result = run(['sessions', 'list'], cwd, env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('PLAITED_STOR is not a variable plaited-agent reads (it is ignored): did you mean PLAITED_STORE?');
    expect(result.stderr).toContain('PLAITD_AUTH_TOKEN is not a variable plaited-agent reads (it is ignored): did you mean PLAITED_AUTH_TOKEN?');
    // Near no name it reads: someone else's.
    expect(result.stderr).not.toContain('PLAITED_SOMETHING_ELSE_ENTIRELY');
    // The value is never echoed (a typo of a secret's name still holds the secret).
    expect(result.stderr).not.toContain('a-token');
  });

  it("ACP and MCP over HTTP given one --port: the collision is named as this process's own, with the fix", async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    const { port } = holder.address() as AddressInfo;
    await new Promise((closed) => holder.close(closed)); // free again: the first face takes it
    const result = run(['--adapter', 'acp', '--adapter', 'mcp', '--transport', 'http', '--port', String(port)], mkdtempSync(join(tmpdir(), 'plaited-cli-')));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`adapter mcp: 127.0.0.1:${port} is already taken by another face of this process (--port goes to every face of --transport http): leave --port out`);
  });

  it('a --host this machine does not have: the address, and the fix (--host)', () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const result = run(['--transport', 'http', '--host', '192.0.2.1', '--port', '0'], mkdtempSync(join(tmpdir(), 'plaited-cli-')));
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('adapter acp: cannot listen on 192.0.2.1: it is not an address of this machine; pick one it has with --host');
  });

  it('the whole-agent sandbox with a PostgreSQL store: refused at once (it has no network to reach it), naming the way that works', () => {
    const result = run(['--adapter', 'sandbox', '--adapter', 'a2a', '--port', '0', '--store', 'postgres://agent@127.0.0.1:5432/agent'], mkdtempSync(join(tmpdir(), 'plaited-cli-')));
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('the whole-agent sandbox (--adapter sandbox, adapters.sandbox.enabled) cannot reach the PostgreSQL store');
    expect(result.stderr).toContain('adapters.sandbox.commands: true');
  });

  it('a mistyped command names the command meant', () => {
    const result = run(['sesions', 'list']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("unknown command 'sesions': did you mean plaited-agent sessions?");
    const models = run(['models', 'lst']);
    expect(models.status).toBe(2);
    expect(models.stderr).toContain('plaited-agent models: unknown subcommand "lst": did you mean plaited-agent models list?');
    const sessions = run(['sessions', 'lst']);
    expect(sessions.status).toBe(2);
    expect(sessions.stderr).toContain("plaited-agent sessions: unknown action 'lst': did you mean plaited-agent sessions list?");
  });

  it.each([
    ['config.ts', `import { defineConfig } from 'plaited-agent';\nexport default defineConfig({ agent: { maxSteps: 5 } });\n`],
    ['config.mjs', `import { defineConfig } from 'plaited-agent';\nexport default defineConfig({ agent: { maxSteps: 5 } });\n`],
  ])('a %s importing plaited-agent where it is not installed says to install it or drop the import', (name, source) => {
    const result = run([], projectWithConfig(name, source));
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`.plaited/${name}`);
    expect(result.stderr).toContain("imports 'plaited-agent', which is not installed in this project");
    expect(result.stderr).toContain('npm install --save-dev');
    expect(result.stderr).toContain('.plaited/config.json');
    expect(result.stderr).toContain('export default { ... }');
  });

  it('the advised plain-object config.ts (no import) loads: its own mistakes are what gets reported', () => {
    const result = run([], projectWithConfig('config.ts', `export default { agent: { maxSteps: -1 } };\n`));
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('agent.maxSteps');
    expect(result.stderr).not.toContain('not installed');
  });
});
