import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { childArgv, runSandboxed, sandboxStatus, startupFilesInArgv, wholeAgentPolicy, type SandboxStatus } from '../../../src/adapters/sandbox/sandbox-adapter.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { startAcpCli } from '../../helpers/acp-cli.js';
import { requireBuiltCli } from './acp-cli-harness.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

const REPORT_CHILD = fileURLToPath(new URL('../../fixtures/sandbox/report-child.mjs', import.meta.url));

let world: SandboxWorld;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  world = await createSandboxWorld();
});

afterAll(async () => {
  await resetSandboxRuntime();
  await world?.close();
});

describe('runSandboxed', () => {
  it('runs the child inside the walls, reports its status, and passes its exit code through', async () => {
    const config = configSchema.parse({});
    const statuses: SandboxStatus[] = [];
    const code = await runSandboxed({
      argv: ['--adapter', 'sandbox', '--adapter', 'acp'],
      config,
      cwd: world.project,
      script: REPORT_CHILD,
      env: { ...process.env, HOME: world.home },
      onStart: (status) => statuses.push(status, sandboxStatus()),
    });
    expect(code).toBe(7);
    expect(statuses[0].isolated).toBe(true);
    expect(statuses[0].pid).toBeGreaterThan(0);
    expect(statuses[1]).toEqual(statuses[0]);
    expect(sandboxStatus()).toEqual({ isolated: false, pid: null });

    const report = JSON.parse(readFileSync(join(world.project, 'output', 'child-report.json'), 'utf8')) as Record<string, unknown>;
    expect(report.argv).toEqual(['--adapter', 'sandbox', '--adapter', 'acp']);
    expect(report.sandboxed).toBe('1');
    expect(report.isolated).toBe('1');
    expect(report.readKey).toBe('ENOENT');
    expect(report.writeEtc).toBe('EROFS');
    // The agent itself may write the project; its commands may not (see the e2e battery).
    expect(report.writeProject).toBe('allowed');
    expect(report.proxy).toBe(true);
  });

  it('the whole-agent policy lets the agent write the project (its edits are approved one by one) and its state folder', () => {
    const config = configSchema.parse({});
    const policy = wholeAgentPolicy(config, world.project);
    expect(policy.allowWrite).toEqual([join(world.project, 'output'), world.project, join(world.project, '.plaited')]);
  });
});

describe('childArgv', () => {
  it('keeps the adapters (the child applies the command sandbox) and drops a dangling --adapter', () => {
    expect(childArgv(['--adapter', 'sandbox', '--adapter', 'acp'])).toEqual(['--adapter', 'sandbox', '--adapter', 'acp']);
    expect(childArgv(['--adapter', '--adapter', 'acp'])).toEqual(['--adapter', 'acp']);
    expect(childArgv(['--config', 'c.json'])).toEqual(['--config', 'c.json']);
  });
});

describe('startupFilesInArgv', () => {
  it('names the existing --config and path-like --adapter files, in both flag forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-argv-'));
    writeFileSync(join(dir, 'a.mjs'), '');
    writeFileSync(join(dir, 'c.json'), '{}');
    expect(startupFilesInArgv(['--adapter', 'sandbox', '--adapter', './a.mjs', '--config=c.json', '--adapter=missing.ts', '--adapter', 'acp'], dir)).toEqual([
      join(dir, 'a.mjs'),
      join(dir, 'c.json'),
    ]);
  });
});

describe('availability through the real CLI', () => {
  /** A PATH with the shell tools the agent needs but no bubblewrap: isolation is unavailable. */
  function pathWithoutBwrap(): string {
    const bin = join(world.root, 'bin-without-bwrap');
    mkdirSync(bin, { recursive: true });
    for (const tool of ['bash', 'sh', 'cat', 'echo', 'env']) {
      try {
        symlinkSync(`/bin/${tool}`, join(bin, tool));
      } catch {
        // Already linked by an earlier test.
      }
    }
    return bin;
  }

  it('production refuses to start, naming the reason and the fix', async () => {
    requireBuiltCli();
    const cli = startAcpCli({ args: ['--adapter', 'sandbox', '--adapter', 'acp'], cwd: world.project, env: { PATH: pathWithoutBwrap(), NODE_ENV: 'production', HOME: world.home } });
    const code = await cli.exited;
    expect(code).toBe(78);
    expect(cli.stderr()).toMatch(/sandbox required \(NODE_ENV=production\) but unavailable: .*bubblewrap.*not installed.*Fix: .*apt-get install bubblewrap socat/);
    await cli.close();
  });

  it('production refuses a temporary folder too long for the sandbox sockets at the start, naming it and the fix', async () => {
    requireBuiltCli();
    const long = join(world.root, 'a-temporary-folder-whose-path-is-longer-than-a-unix-socket-can-bear');
    mkdirSync(long, { recursive: true });
    const cli = startAcpCli({ args: ['--adapter', 'sandbox', '--adapter', 'acp'], cwd: world.project, env: { TMPDIR: long, NODE_ENV: 'production', HOME: world.home } });
    expect(await cli.exited).toBe(78);
    expect(cli.stderr()).toContain(`sandbox required (NODE_ENV=production) but unavailable: the temporary folder ${long} is`);
    expect(cli.stderr()).toContain('Fix: set TMPDIR to a shorter folder (such as /tmp) for the agent');
    await cli.close();
  });

  it('development warns on stderr and runs unsandboxed; the protocol still works', async () => {
    requireBuiltCli();
    const cli = startAcpCli({ args: ['--adapter', 'sandbox', '--adapter', 'acp'], cwd: world.project, env: { PATH: pathWithoutBwrap(), NODE_ENV: 'development', HOME: world.home } });
    try {
      const init = await cli.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(1);
      expect(cli.stderr()).toMatch(/sandbox unavailable, running UNSANDBOXED \(development mode\): .*bubblewrap/);
    } finally {
      await cli.close();
    }
  });
});
