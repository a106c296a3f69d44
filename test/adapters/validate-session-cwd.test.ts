import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidCwdError } from '../../src/adapters/invalid-cwd-error.js';
import { validateSessionCwd } from '../../src/adapters/validate-session-cwd.js';

const workspace = () => mkdtempSync(join(tmpdir(), 'plaited-cwd-'));

async function reason(value: unknown): Promise<string> {
  try {
    await validateSessionCwd(value);
  } catch (error) {
    expect(InvalidCwdError.isInstance(error)).toBe(true);
    expect((error as InvalidCwdError).field).toBe('cwd');
    return (error as InvalidCwdError).reason;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('validateSessionCwd', () => {
  it('accepts an existing absolute folder, without a trailing slash', async () => {
    const cwd = workspace();
    expect(await validateSessionCwd(cwd)).toBe(cwd);
    expect(await validateSessionCwd(`${cwd}/`)).toBe(cwd);
    expect(await validateSessionCwd(cwd.replace('/', '//'))).toBe(cwd);
  });

  it('names why each hostile folder is refused, and creates nothing', async () => {
    const cwd = workspace();
    writeFileSync(join(cwd, 'file'), 'x');
    expect(await reason(join(cwd, 'missing', 'deeper'))).toBe('does not exist');
    expect(existsSync(join(cwd, 'missing'))).toBe(false);
    expect(await reason(join(cwd, 'file'))).toBe('is not a directory');
    expect(await reason('/dev/null')).toMatch(/pseudo-filesystems/);
    expect(await reason('/proc/self')).toMatch(/pseudo-filesystems/);
    expect(await reason('/sys/kernel')).toMatch(/pseudo-filesystems/);
    expect(await reason('/')).toMatch(/root/);
    expect(await reason(`${cwd}/../../../../../..`)).toMatch(/normalized/);
    expect(await reason('relative/dir')).toMatch(/absolute/);
    expect(await reason('')).toMatch(/empty/);
    expect(await reason(`${cwd}\nx`)).toMatch(/control characters/);
    expect(await reason(`${cwd}\u0000x`)).toMatch(/control characters/);
    expect(await reason(`/${'a'.repeat(5000)}`)).toMatch(/longer than 4096/);
    expect(await reason(`/${'a'.repeat(300)}`)).toMatch(/longer than 255/);
    expect(await reason(42)).toMatch(/string/);
  });

  it('follows symbolic links before deciding: a link into /proc is refused, a link to a project is fine', async () => {
    const cwd = workspace();
    symlinkSync('/proc/self', join(cwd, 'to-proc'));
    mkdirSync(join(cwd, 'real'));
    symlinkSync(join(cwd, 'real'), join(cwd, 'to-real'));
    expect(await reason(join(cwd, 'to-proc'))).toMatch(/pseudo-filesystem/);
    expect(await validateSessionCwd(join(cwd, 'to-real'))).toBe(join(cwd, 'to-real'));
  });
});
