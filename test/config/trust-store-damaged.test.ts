import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkConfigTrust, trustStorePath } from '../../src/config/config-trust.js';
import { runTrustCommand } from '../../src/cli/trust-command.js';
import { runInitCommand } from '../../src/cli/init-command.js';

/** `plaited-agent trust` in `cwd` (the command's own function, its output collected). */
async function trust(cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const status = await runTrustCommand([], cwd, { stdout, stderr }, env);
  return { status, stdout: out, stderr: err };
}

function project(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, '.plaited'), { recursive: true });
  writeFileSync(join(dir, '.plaited', 'config.json'), `{ "agent": { "maxSteps": 7 } }\n`);
  return dir;
}

describe('a damaged trusted-configs.json', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'plaited-trust-damaged-'));
    env = { XDG_CONFIG_HOME: join(root, 'config-home') };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('truncated: `trust` refuses and leaves it as it is (the other trusts are not lost); a start names the file and the fix, not "not trusted"', async () => {
    const first = project(root, 'first');
    const second = project(root, 'second');
    expect((await trust(first, env)).status).toBe(0);
    const store = trustStorePath(env);
    const whole = readFileSync(store, 'utf8');
    const damaged = whole.slice(0, whole.length - 40);
    writeFileSync(store, damaged);

    const run = await trust(second, env);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`the trust decisions in ${store} cannot be read (not valid JSON`);
    expect(run.stderr).toContain(`mv "${store}" "${store}.damaged"`);
    expect(readFileSync(store, 'utf8')).toBe(damaged);

    const verdict = await checkConfigTrust(join(first, '.plaited', 'config.json'), first, 'plaited-agent trust', env);
    expect(verdict).toMatchObject({ trusted: false, reason: 'store_damaged' });
    expect(verdict.trusted ? '' : verdict.message).toContain(`the trust decisions in ${store} cannot be read`);
    expect(readFileSync(store, 'utf8')).toBe(damaged);
  });

  it('not a trust store, or a folder in its place: the same, and the folder stays', async () => {
    const dir = project(root, 'one');
    const store = trustStorePath(env);
    mkdirSync(join(store, '..'), { recursive: true });
    writeFileSync(store, '[1, 2, 3]\n');
    const refused = await trust(dir, env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('expected { "version": 1, "configs": { ... } }');
    expect(readFileSync(store, 'utf8')).toBe('[1, 2, 3]\n');

    rmSync(store);
    mkdirSync(join(store, 'kept'), { recursive: true });
    const folder = await trust(dir, env);
    expect(folder.status).toBe(1);
    expect(folder.stderr).toContain(`the trust decisions in ${store} cannot be read (EISDIR`);
    const verdict = await checkConfigTrust(join(dir, '.plaited', 'config.json'), dir, 'plaited-agent trust', env);
    expect(verdict).toMatchObject({ trusted: false, reason: 'store_damaged' });

    // A named pipe in its place: refused at once, never waited on (every start reads it).
    rmSync(store, { recursive: true });
    execFileSync('mkfifo', [store]);
    expect(await checkConfigTrust(join(dir, '.plaited', 'config.json'), dir, 'plaited-agent trust', env)).toMatchObject({ trusted: false, reason: 'store_damaged' });
  });

  it('`init` still writes the config and AGENTS.md, says the config is not trusted and why, and leaves the file as it is', async () => {
    const dir = join(root, 'fresh-init');
    mkdirSync(dir);
    const store = trustStorePath(env);
    mkdirSync(join(store, '..'), { recursive: true });
    writeFileSync(store, '{ "version": 1, "configs": {');
    let out = '';
    let err = '';
    const stdout = new PassThrough().on('data', (chunk: Buffer) => (out += chunk.toString()));
    const stderr = new PassThrough().on('data', (chunk: Buffer) => (err += chunk.toString()));
    expect(await runInitCommand([], dir, { stdout, stderr }, env)).toBe(1);
    expect(out).toContain(`Wrote ${join(dir, 'AGENTS.md')}`);
    expect(err).toContain(`plaited-agent init: ${join(dir, '.plaited', 'config.ts')} was written but not trusted: the trust decisions in ${store} cannot be read`);
    expect(readFileSync(store, 'utf8')).toBe('{ "version": 1, "configs": {');
  });

  it('a missing file is no damage: nothing is trusted until `trust` writes it', async () => {
    const dir = project(root, 'fresh');
    const config = join(dir, '.plaited', 'config.json');
    expect(await checkConfigTrust(config, dir, 'plaited-agent trust', env)).toMatchObject({ trusted: false, reason: 'untrusted' });
    expect((await trust(dir, env)).status).toBe(0);
    expect(await checkConfigTrust(config, dir, 'plaited-agent trust', env)).toMatchObject({ trusted: true });
  });
});
