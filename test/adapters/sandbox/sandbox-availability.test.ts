import { describe, expect, it } from 'vitest';
import { checkSandboxAvailability, resolveSandboxMode, tmpdirTooLong, type SandboxAvailability } from '../../../src/adapters/sandbox/sandbox-availability.js';
import { SandboxUnavailableError } from '../../../src/adapters/sandbox/sandbox-unavailable-error.js';

const missing: SandboxAvailability = {
  available: false,
  reason: 'bubblewrap (bwrap) not installed',
  fix: 'install the sandbox dependencies: `apt-get install bubblewrap socat ripgrep`',
  warnings: [],
  processLimit: false,
};

describe('checkSandboxAvailability', () => {
  it('finds bubblewrap and working user namespaces on this machine', async () => {
    const availability = await checkSandboxAvailability({ fresh: true });
    if (!availability.available) {
      throw new Error(`the sandbox tests need bubblewrap with user namespaces: ${availability.reason}. Fix: ${availability.fix}`);
    }
    expect(availability.available).toBe(true);
  });
});

describe('tmpdirTooLong', () => {
  it('names a temporary folder too long for the sandbox sockets, and passes one that fits', () => {
    expect(tmpdirTooLong('/tmp')).toBeUndefined();
    expect(tmpdirTooLong(`/${'a'.repeat(71)}`)).toBeUndefined();
    expect(tmpdirTooLong(`/${'a'.repeat(72)}`)).toMatch(/is 73 bytes long, and the sandbox's sockets in it need it at most 72 \(a unix socket's path holds 107\)/);
  });
});

describe('resolveSandboxMode', () => {
  it('isolates when the sandbox is available', async () => {
    const warnings: string[] = [];
    const mode = await resolveSandboxMode({ config: { required: true }, env: { NODE_ENV: 'production' }, warn: (m) => warnings.push(m), availability: { available: true, warnings: [], processLimit: true } });
    expect(mode).toBe('isolated');
    expect(warnings).toEqual([]);
  });

  it('development: warns (with the fix) and runs unsandboxed', async () => {
    const warnings: string[] = [];
    const mode = await resolveSandboxMode({ config: { required: false }, env: {}, warn: (m) => warnings.push(m), availability: missing });
    expect(mode).toBe('unsandboxed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/UNSANDBOXED.*bwrap.*not installed.*apt-get install bubblewrap/);
  });

  it('production refuses to start, with the reason and the fix', async () => {
    const attempt = resolveSandboxMode({ config: { required: false }, env: { NODE_ENV: 'production' }, warn: () => undefined, availability: missing });
    await expect(attempt).rejects.toThrow(SandboxUnavailableError);
    await expect(attempt).rejects.toThrow(/NODE_ENV=production.*bwrap\) not installed.*Fix: install/);
  });

  it('adapters.sandbox.required refuses to start outside production too', async () => {
    const error = await resolveSandboxMode({ config: { required: true }, env: {}, warn: () => undefined, availability: missing }).catch((e: unknown) => e);
    expect(SandboxUnavailableError.isInstance(error)).toBe(true);
    expect((error as SandboxUnavailableError).code).toBe('sandbox_unavailable');
    expect((error as SandboxUnavailableError).requiredBy).toBe('adapters.sandbox.required');
  });
});
