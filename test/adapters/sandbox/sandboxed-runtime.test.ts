import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { createLocalRuntime } from '../../../src/tools/local-runtime.js';
import type { Runtime } from '../../../src/contracts/runtime.js';
import { createSandboxPolicy, type SandboxPolicy } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { createSandboxedRuntime } from '../../../src/adapters/sandbox/sandboxed-runtime.js';
import { SandboxViolationError } from '../../../src/adapters/sandbox/sandbox-violation-error.js';
import { resetSandboxRuntime } from '../../../src/adapters/sandbox/sandbox-runtime-host.js';
import { ALLOWED_BODY, FIXTURE_ENV, createSandboxWorld, fileHash, requirePrograms, requireProcessLimit, type SandboxWorld } from './sandbox-fixture.js';

/**
 * The attack battery against the per-command sandbox, with real bubblewrap,
 * the real proxy and real servers on 127.0.0.1. Every attack must fail, and
 * the error must say why.
 */

let world: SandboxWorld;
let policy: SandboxPolicy;
let runtime: Runtime;
let env: Record<string, string>;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat', 'curl');
  world = await createSandboxWorld();
  policy = createSandboxPolicy({
    config: sandboxSchema.parse({ commands: true, limits: { memory: '256M', processes: 64, timeoutMs: 20_000 } }),
    cwd: world.project,
    home: world.home,
    // The "model endpoint": allowed, and the only thing on loopback that is.
    modelBaseUrl: `http://127.0.0.1:${world.httpPort}/v1`,
  });
  runtime = createSandboxedRuntime(createLocalRuntime(world.project), policy, { mode: 'isolated' });
  env = { HOME: world.home };
});

afterAll(async () => {
  await resetSandboxRuntime();
  await world?.close();
});

async function blocked(command: string, options: { timeoutMs?: number; via?: Runtime } = {}): Promise<SandboxViolationError> {
  const error = await (options.via ?? runtime).exec(command, { env, timeoutMs: options.timeoutMs ?? 20_000 }).then(
    (result) => new Error(`expected the sandbox to block \`${command}\`, but it ran: exit ${result.exitCode}\n${result.output}`),
    (thrown: unknown) => thrown,
  );
  if (!SandboxViolationError.isInstance(error)) throw error;
  return error;
}

describe('createSandboxedRuntime: allowed work still works', () => {
  it('runs a command, writes into ./output and reads project files', async () => {
    const result = await runtime.exec('echo built > output/result.txt && cat output/result.txt && ls', { env });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('built');
    expect(readFileSync(join(world.project, 'output', 'result.txt'), 'utf8')).toBe('built\n');
  });

  it('reaches an allowed host through the sandbox proxy', async () => {
    const result = await runtime.exec(`curl -sS --max-time 15 http://127.0.0.1:${world.httpPort}/`, { env });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain(ALLOWED_BODY);
  });

  it('does not hand credentials from the environment to commands', async () => {
    const result = await runtime.exec('echo "key=[$PLAITED_TEST_API_KEY] token=[$GH_TOKEN] plain=[$PLAIN_SETTING]"', {
      env: { ...env, PLAITED_TEST_API_KEY: 'sk-fixture', GH_TOKEN: 'ghp-fixture', PLAIN_SETTING: 'kept' },
    });
    expect(result.output).toContain('key=[] token=[] plain=[kept]');
  });

  it('passes through only the credentials the config names (tools.env.passthrough)', async () => {
    const result = await runtime.exec('echo "key=[$PLAITED_TEST_API_KEY] token=[$GH_TOKEN]"', {
      env: { ...env, PLAITED_TEST_API_KEY: 'sk-fixture', GH_TOKEN: 'ghp-fixture' },
      passEnv: ['GH_TOKEN'],
    });
    expect(result.output).toContain('key=[] token=[ghp-fixture]');
  });

  it('reports kind "sandbox"', () => {
    expect(runtime.kind).toBe('sandbox');
  });
});

describe('createSandboxedRuntime: the attack battery', () => {
  it('blocks reading ~/.ssh/id_rsa', async () => {
    const error = await blocked('cat ~/.ssh/id_rsa');
    expect(error.message).toMatch(/^blocked by sandbox: read of .*\.ssh\/id_rsa/);
    expect(error.message).not.toContain('plaited-fixture-key');
    expect(error.findings[0].kind).toBe('read');
  });

  it('blocks reading a .env file', async () => {
    const error = await blocked('cat .env');
    expect(error.message).toMatch(/^blocked by sandbox: read of \.env/);
    expect(error.message).not.toContain('fixture-token');
  });

  it('blocks a write outside allowWrite (/etc/passwd)', async () => {
    const before = fileHash('/etc/passwd');
    const error = await blocked('echo "pwned:x:0:0::/:/bin/sh" >> /etc/passwd');
    expect(error.message).toMatch(/^blocked by sandbox: write to \/etc\/passwd/);
    expect(error.findings[0].kind).toBe('write');
    expect(fileHash('/etc/passwd')).toBe(before);
  });

  it('blocks a write through a symlink that points outside', async () => {
    const error = await blocked('echo escaped > output/escape-link');
    expect(error.message).toMatch(/^blocked by sandbox: write to output\/escape-link \(a link to .*outside\.txt\)/);
    expect(existsSync(world.outsideTarget)).toBe(false);
  });

  it('blocks `..` traversal out of the writable folder', async () => {
    const error = await blocked('echo escaped > output/../../escaped.txt');
    expect(error.message).toMatch(/^blocked by sandbox: write to output\/\.\.\/\.\.\/escaped\.txt/);
    expect(existsSync(join(world.root, 'escaped.txt'))).toBe(false);
  });

  it('blocks a raw TCP connection to a port on 127.0.0.1', async () => {
    const error = await blocked(`exec 3<>/dev/tcp/127.0.0.1/${world.tcpPort} && cat <&3`);
    expect(error.message).toMatch(new RegExp(`^blocked by sandbox: network access to 127\\.0\\.0\\.1:${world.tcpPort} is not allowed`));
    expect(world.tcpConnections()).toBe(0);
  });

  it('blocks HTTP to a loopback port that is not allow-listed', async () => {
    const error = await blocked(`curl -sS --fail --max-time 15 http://127.0.0.1:${world.tcpPort}/`);
    expect(error.message).toMatch(new RegExp(`blocked by sandbox: network access to 127\\.0\\.0\\.1:${world.tcpPort} is not allowed`));
    expect(world.tcpConnections()).toBe(0);
  });

  it('blocks a non-allowed domain with the reason, not a DNS timeout', async () => {
    const error = await blocked('curl -sS --max-time 15 https://example.com/');
    expect(error.message).toMatch(/^blocked by sandbox: network access to example\.com is not allowed/);
  });

  it('blocks a client that ignores the proxy (Node fetch) with the reason', async () => {
    // Node reserves about 1 GB of address space at start, so this runtime gets a roomier memory limit.
    const roomy = createSandboxedRuntime(createLocalRuntime(world.project), { ...policy, limits: { ...policy.limits, memoryBytes: 4 * 1024 ** 3 } }, { mode: 'isolated' });
    const error = await blocked(`node -e "fetch('http://example.org/').then(() => console.log('reached'), (e) => { console.error(String(e.cause ?? e)); process.exit(1); })"`, { via: roomy });
    expect(error.message).toMatch(/blocked by sandbox: network access to example\.org/);
    expect(error.message).not.toContain('reached');
  });

  it('ends a fork bomb at the process limit', async () => {
    await requireProcessLimit();
    const error = await blocked(':(){ :|:& };:; sleep 5', { timeoutMs: 4_000 });
    expect(error.message).toMatch(/killed: process limit 64 exceeded/);
    expect(error.findings.map((finding) => finding.kind)).toContain('processes');
  });

  it('ends a memory hog at the memory limit', async () => {
    const error = await blocked('tail /dev/zero');
    expect(error.message).toMatch(/^killed: memory limit 256 MB exceeded/);
  });

  it('ends a command at the wall-clock limit', async () => {
    const strict = createSandboxedRuntime(createLocalRuntime(world.project), { ...policy, limits: { ...policy.limits, timeoutMs: 1_000 } }, { mode: 'isolated' });
    const error = await blocked('sleep 30', { via: strict });
    expect(error.message).toMatch(/^killed: wall-clock limit 1s exceeded/);
  });

  it("leaves the caller's own timeout to the caller (not a sandbox violation)", async () => {
    const result = await runtime.exec('sleep 30', { env, timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
  });

  it('keeps working after the attacks (the agent lives on)', async () => {
    const result = await runtime.exec('echo still here', { env });
    expect(result.output).toContain('still here');
  });
});

describe('createSandboxedRuntime: file access', () => {
  it('refuses readFile of a protected path', async () => {
    await expect(runtime.readFile(join(world.home, '.ssh', 'id_rsa'))).rejects.toThrow(/blocked by sandbox: read of .*id_rsa/);
    await expect(runtime.readFile(join(world.project, '.env'))).rejects.toThrow(/blocked by sandbox: read of .*\.env/);
  });

  it('refuses readFile and writeFile through a symlink to a protected path', async () => {
    symlinkSync(join(world.project, '.env'), join(world.project, 'output', 'env-link'));
    await expect(runtime.readFile(join(world.project, 'output', 'env-link'))).rejects.toThrow(/blocked by sandbox: read of .*env-link/);
    await expect(runtime.writeFile('output/env-link', 'API_TOKEN=overwritten\n')).rejects.toThrow(/blocked by sandbox: write to output\/env-link/);
    expect(readFileSync(join(world.project, '.env'), 'utf8')).toBe(FIXTURE_ENV);
  });

  it('passes other file access through', async () => {
    await runtime.writeFile(join(world.project, 'output', 'note.txt'), 'note');
    expect(await runtime.readFile(join(world.project, 'output', 'note.txt'))).toBe('note');
  });
});
