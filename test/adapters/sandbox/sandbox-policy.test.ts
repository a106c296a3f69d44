import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxSchema } from '../../../src/config/schema.js';
import { createSandboxPolicy, modelHostEntries, toSandboxRuntimeConfig } from '../../../src/adapters/sandbox/sandbox-policy.js';
import { parseMemoryLimit } from '../../../src/adapters/sandbox/resource-limits.js';
import { SandboxConfigError } from '../../../src/adapters/sandbox/sandbox-config-error.js';

const base = { cwd: '/work/project', home: '/home/user' };

describe('createSandboxPolicy', () => {
  it('applies the defaults: ./output writable, secrets denied, no network', () => {
    const policy = createSandboxPolicy({ ...base, config: sandboxSchema.parse({}) });
    expect(policy.allowWrite).toEqual(['/work/project/output']);
    expect(policy.denyRead).toEqual(expect.arrayContaining(['/home/user/.ssh', '/home/user/.aws', '/work/project/.env', '/work/project/.env.*']));
    expect(policy.allowedDomains).toEqual([]);
    expect(policy.limits.processes).toBeGreaterThan(0);
  });

  it('adds the cwd to allowWrite only when edits are allowed', () => {
    const config = sandboxSchema.parse({});
    expect(createSandboxPolicy({ ...base, config }).allowWrite).not.toContain('/work/project');
    expect(createSandboxPolicy({ ...base, config, allowEdits: true }).allowWrite).toContain('/work/project');
  });

  it('expands ~ and relative paths against the session cwd', () => {
    const config = sandboxSchema.parse({ security: { allowWrite: ['~/cache', 'build', '/tmp/abs'], denyRead: ['secrets/'] } });
    const policy = createSandboxPolicy({ ...base, config });
    expect(policy.allowWrite).toEqual(['/home/user/cache', '/work/project/build', '/tmp/abs']);
    // Secrets stay denied even when the config's list forgets them.
    expect(policy.denyRead).toEqual(expect.arrayContaining(['/work/project/secrets', '/home/user/.ssh']));
  });

  it('denied reads that exist are never writable either', () => {
    const home = mkdtempSync(join(tmpdir(), 'plaited-policy-'));
    mkdirSync(join(home, '.ssh'));
    const policy = createSandboxPolicy({ cwd: '/work/project', home, config: sandboxSchema.parse({}) });
    expect(policy.denyWrite).toContain(join(home, '.ssh'));
    // Missing paths are left out: bubblewrap would create a placeholder file for each on the host.
    expect(policy.denyWrite).not.toContain(join(home, '.aws'));
    expect(policy.denyWrite).not.toContain('/work/project/.env.*');
    rmSync(home, { recursive: true, force: true });
  });

  it('allows the model endpoint host: a remote name, or a loopback literal with its port', () => {
    expect(modelHostEntries('https://api.example.com/v1')).toEqual(['api.example.com']);
    expect(modelHostEntries('http://127.0.0.1:8080/v1')).toEqual(['127.0.0.1:8080']);
    expect(modelHostEntries('http://localhost:11434')).toEqual(['localhost:11434', '127.0.0.1:11434']);
    expect(modelHostEntries(undefined)).toEqual([]);
    const policy = createSandboxPolicy({ ...base, config: sandboxSchema.parse({ security: { allowedDomains: ['registry.npmjs.org'] } }), modelBaseUrl: 'https://api.example.com/v1' });
    expect(policy.allowedDomains).toEqual(['registry.npmjs.org', 'api.example.com']);
  });

  it('maps onto the sandbox-runtime config', () => {
    const policy = createSandboxPolicy({ ...base, config: sandboxSchema.parse({}) });
    const config = toSandboxRuntimeConfig(policy);
    expect(config.filesystem.allowWrite).toEqual(policy.allowWrite);
    expect(config.network.allowedDomains).toEqual([]);
  });

  it('parses memory sizes, and rejects nonsense with a typed error', () => {
    expect(parseMemoryLimit('512M')).toBe(512 * 1024 ** 2);
    expect(parseMemoryLimit('2G')).toBe(2 * 1024 ** 3);
    expect(parseMemoryLimit(1000)).toBe(1000);
    expect(() => parseMemoryLimit('lots')).toThrow(SandboxConfigError);
    const policy = createSandboxPolicy({ ...base, config: sandboxSchema.parse({ limits: { memory: '256M', timeoutMs: 5000, processes: 32 } }) });
    expect(policy.limits).toEqual({ memoryBytes: 256 * 1024 ** 2, timeoutMs: 5000, processes: 32 });
  });
});
