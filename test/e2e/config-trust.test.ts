import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJiti } from 'jiti';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

// Config trust through the built CLI: a project's config runs only while it (and everything it
// imports from the project) is byte for byte what the user trusted with `plaited-agent trust`.
const dirs: string[] = [];
const clis: AcpCli[] = [];
afterEach(async () => {
  for (const cli of clis.splice(0)) await cli.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project whose config writes `.plaited/ran` when it runs (the side effect a trust check must prevent). */
function project(files: Record<string, string>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-trust-'));
  dirs.push(cwd);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(cwd, path, '..'), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
  return cwd;
}

const RUNS = `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./ran', import.meta.url), 'yes');\n`;
const CONFIG_TS = `${RUNS}import { steps } from './lib/extra.js';\nexport default { agent: { maxSteps: steps } };\n`;

function cli(cwd: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
}

/** Starts the agent (nobody trusts for it), lets it load its config, and returns it. */
async function start(cwd: string, env: Record<string, string> = {}): Promise<AcpCli> {
  const agent = startAcpCli({ cwd, args: [], env, trust: false });
  clis.push(agent);
  await initialize(agent, { session: { notices: {} } });
  return agent;
}

const ran = (cwd: string) => existsSync(join(cwd, '.plaited', 'ran'));

describe('config trust', () => {
  it('an untrusted config is not run: defaults apply, stderr and each session say why and how to trust it', async () => {
    const cwd = project({ '.plaited/config.ts': CONFIG_TS, '.plaited/lib/extra.ts': 'export const steps: number = 3;\n' });
    const agent = await start(cwd);
    expect(ran(cwd)).toBe(false);
    await waitFor(() => agent.stderr().includes('not trusted'), 10_000, 'the trust message on stderr');
    expect(agent.stderr()).toContain('.plaited/config.ts and the 1 file it imports are not trusted');
    expect(agent.stderr()).toContain('plaited-agent trust');
    const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(
      () => agent.updates.some((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'notice' && JSON.stringify(n.update).includes('plaited-agent trust')),
      10_000,
      'a session notice about the untrusted config',
    );
  });

  it('an untrusted config.json (it can grant tools.allow) is not applied either', async () => {
    const cwd = project({ '.plaited/config.json': JSON.stringify({ tools: { allow: ['*'] } }) });
    const agent = await start(cwd);
    await waitFor(() => agent.stderr().includes('.plaited/config.json is not trusted'), 10_000, 'the trust message for the JSON config');
  });

  it('`plaited-agent trust` lists the files it hashes and records them; the trusted config then runs, until revoked', async () => {
    const cwd = project({ '.plaited/config.ts': CONFIG_TS, '.plaited/lib/extra.ts': 'export const steps: number = 3;\n' });
    const trust = cli(cwd, ['trust']);
    expect(trust.status, trust.stderr).toBe(0);
    expect(trust.stdout).toMatch(/[0-9a-f]{64} {2}\.plaited\/config\.ts/);
    expect(trust.stdout).toMatch(/[0-9a-f]{64} {2}\.plaited\/lib\/extra\.ts/);
    const store = JSON.parse(readFileSync(join(process.env.XDG_CONFIG_HOME!, 'plaited-agent', 'trusted-configs.json'), 'utf8')) as { configs: Record<string, { trustedAt: string }> };
    expect(Object.entries(store.configs).find(([path]) => path.endsWith(join(cwd, '.plaited', 'config.ts')))?.[1].trustedAt).toMatch(/^\d{4}-/);

    const agent = await start(cwd);
    expect(ran(cwd)).toBe(true);
    expect(agent.stderr()).not.toContain('not trusted');
    await agent.close();

    rmSync(join(cwd, '.plaited', 'ran'));
    expect(cli(cwd, ['trust', '--revoke']).status).toBe(0);
    const after = await start(cwd);
    expect(ran(cwd)).toBe(false);
    await waitFor(() => after.stderr().includes('not trusted'), 10_000, 'the trust message after a revoke');
  });

  it('eight `trust` commands at once in eight projects all land: none overwrites what another recorded', async () => {
    const home = mkdtempSync(join(tmpdir(), 'plaited-trust-home-'));
    dirs.push(home);
    const projects = Array.from({ length: 8 }, (_, i) => project({ '.plaited/config.json': JSON.stringify({ agent: { maxSteps: i + 1 } }) }));
    const runs = projects.map(
      (cwd) =>
        new Promise<number | null>((done) => {
          const child = spawn(process.execPath, [CLI, 'trust'], { cwd, env: { ...process.env, XDG_CONFIG_HOME: home }, stdio: 'ignore' });
          child.on('exit', done);
        }),
    );
    expect(await Promise.all(runs)).toEqual(projects.map(() => 0));
    const store = JSON.parse(readFileSync(join(home, 'plaited-agent', 'trusted-configs.json'), 'utf8')) as { configs: Record<string, unknown> };
    for (const cwd of projects) expect(Object.keys(store.configs).some((path) => path.endsWith(join(cwd, '.plaited', 'config.json'))), cwd).toBe(true);
  });

  it('an imported ./lib/extra.ts changed after trust is not run, and stderr names the changed file', async () => {
    const cwd = project({ '.plaited/config.ts': CONFIG_TS, '.plaited/lib/extra.ts': 'export const steps: number = 3;\n' });
    expect(cli(cwd, ['trust']).status).toBe(0);
    writeFileSync(join(cwd, '.plaited/lib/extra.ts'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('../ran', import.meta.url), 'pwned');\nexport const steps = 3;\n`);
    const agent = await start(cwd);
    expect(ran(cwd)).toBe(false);
    await waitFor(() => agent.stderr().includes('changed since you trusted'), 10_000, 'the change message');
    expect(agent.stderr()).toContain('.plaited/lib/extra.ts changed since you trusted .plaited/config.ts');
  });

  it('a package in the project node_modules changed after trust makes its importing config untrusted', async () => {
    const cwd = project({
      '.plaited/config.mjs': `${RUNS}import { steps } from 'helper-pkg';\nexport default { agent: { maxSteps: steps } };\n`,
      'node_modules/helper-pkg/package.json': JSON.stringify({ name: 'helper-pkg', type: 'module', exports: './index.js' }),
      'node_modules/helper-pkg/index.js': `export { steps } from './steps.js';\n`,
      'node_modules/helper-pkg/steps.js': 'export const steps = 3;\n',
    });
    const trust = cli(cwd, ['trust']);
    expect(trust.stdout).toContain('node_modules/helper-pkg/steps.js');
    writeFileSync(join(cwd, 'node_modules/helper-pkg/steps.js'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(cwd, '.plaited', 'ran'))}, 'pwned');\nexport const steps = 3;\n`);
    const agent = await start(cwd);
    expect(ran(cwd)).toBe(false);
    await waitFor(() => agent.stderr().includes('node_modules/helper-pkg/steps.js changed'), 10_000, 'the change message naming the package file');
  });

  it('a computed import cannot be trusted: `trust` refuses naming it, and the agent does not run the config', async () => {
    const cwd = project({ '.plaited/config.mjs': `${RUNS}const name = './lib/' + 'x.mjs';\nawait import(name);\nexport default {};\n`, '.plaited/lib/x.mjs': 'export {};\n' });
    const trust = cli(cwd, ['trust']);
    expect(trust.status).toBe(1);
    expect(trust.stderr).toContain('.plaited/config.mjs line 4: import(name)');
    const agent = await start(cwd);
    expect(ran(cwd)).toBe(false);
    await waitFor(() => agent.stderr().includes('cannot be trusted'), 10_000, 'the untrustable message');
  });

  it('a config with a syntax error: `trust` names the file, the line and the fix, not a computed import', () => {
    const cwd = project({
      '.plaited/config.ts': `import { steps } from './lib/extra.js';\n\nexport default { agent: { maxSteps: steps }\n`,
      '.plaited/lib/extra.ts': 'export const steps: number = 3;\n',
    });
    const trust = cli(cwd, ['trust']);
    expect(trust.status).toBe(1);
    expect(trust.stderr).toContain('.plaited/config.ts has a syntax error at line 4');
    expect(trust.stderr).toContain('fix it, then run `plaited-agent trust`');
    expect(trust.stderr).not.toContain('computed');
    expect(trust.stderr).not.toContain('literal path');
  });

  it('a config.json beside a config.ts is never read: trust and a start say so, naming both', async () => {
    const cwd = project({ '.plaited/config.ts': 'export default { agent: { maxSteps: 3 } };\n', '.plaited/config.json': '{ "agent": { "maxSteps": 4 } }\n' });
    const warning = '.plaited/config.json is not read: .plaited/config.ts is the project\'s config';
    const trust = cli(cwd, ['trust']);
    expect(trust.status, trust.stderr).toBe(0);
    expect(trust.stderr).toContain(warning);
    const started = cli(cwd, ['-p', 'hi', '--model', 'openai-compatible:scripted', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(started.stderr).toContain(warning);
  });

  it('--config FILE is trusted with `trust --config FILE`, and not run before', async () => {
    const cwd = project({ 'team.config.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./team-ran', import.meta.url), 'yes');\nexport default {};\n` });
    const before = startAcpCli({ cwd, args: ['--config', 'team.config.mjs'], trust: false });
    clis.push(before);
    await initialize(before);
    expect(existsSync(join(cwd, 'team-ran'))).toBe(false);
    await waitFor(() => before.stderr().includes('plaited-agent trust --config team.config.mjs'), 10_000, 'the trust hint naming --config');
    expect(cli(cwd, ['trust', '--config', 'team.config.mjs']).status).toBe(0);
    const after = startAcpCli({ cwd, args: ['--config', 'team.config.mjs'], trust: false });
    clis.push(after);
    await initialize(after);
    expect(existsSync(join(cwd, 'team-ran'))).toBe(true);
  });

  it("a poisoned jiti cache file beside the config's hash is not run: the trusted source is", async () => {
    const cwd = project({ '.plaited/config.ts': CONFIG_TS, '.plaited/lib/extra.ts': 'export const steps: number = 3;\n' });
    const tmp = mkdtempSync(join(tmpdir(), 'plaited-trust-tmp-'));
    dirs.push(tmp);
    // What jiti's file cache holds for this config (the name and trailing hash jiti computes), made by jiti itself.
    const parent = join(CLI, '../../src/config/load-config.js');
    await createJiti(parent, { moduleCache: false, fsCache: join(tmp, 'jiti') }).import(join(cwd, '.plaited/config.ts'), { default: true });
    rmSync(join(cwd, '.plaited', 'ran'));
    const cached = readdirSync(join(tmp, 'jiti')).find((name) => name.includes('config'))!;
    const poisoned = join(cwd, 'poisoned');
    writeFileSync(join(tmp, 'jiti', cached), `(await jitiImport("node:fs")).writeFileSync(${JSON.stringify(poisoned)}, 'yes');\n${readFileSync(join(tmp, 'jiti', cached), 'utf8')}`);
    expect(cli(cwd, ['trust']).status).toBe(0);

    await start(cwd, { TMPDIR: tmp });
    expect(ran(cwd)).toBe(true);
    expect(existsSync(poisoned)).toBe(false);
  });
});
