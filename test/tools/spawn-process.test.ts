import { describe, expect, it } from 'vitest';
import { spawnProcess } from '../../src/tools/spawn-process.js';
import { ProcessSpawnError } from '../../src/tools/process-spawn-error.js';
import os from 'node:os';

describe('spawnProcess', () => {
  it('runs a program directly with an args array (no shell)', async () => {
    const result = await spawnProcess({ file: 'printf', args: ['%s|', '$HOME', 'a b'], cwd: os.tmpdir() });
    expect(result).toMatchObject({ output: '$HOME|a b|', exitCode: 0, truncated: false, aborted: false });
  });

  it('keeps stderr apart when asked', async () => {
    const result = await spawnProcess({
      file: 'bash',
      args: ['-c', 'echo out; echo err >&2; exit 2'],
      cwd: os.tmpdir(),
      separateStderr: true,
    });
    expect(result).toMatchObject({ output: 'out\n', stderr: 'err\n', exitCode: 2 });
  });

  it('head mode stops an endless producer once the cap is reached', async () => {
    const result = await spawnProcess({ file: 'yes', args: [], cwd: os.tmpdir(), keep: 'head', maxOutputBytes: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.output).toBe('y\n'.repeat(500));
    expect(result.exitCode).toBeNull();
  });

  it('rejects with ProcessSpawnError carrying ENOENT for a missing program', async () => {
    const error = await spawnProcess({ file: 'definitely-not-a-program-xyz', args: [], cwd: os.tmpdir() }).catch(
      (e: unknown) => e,
    );
    expect(ProcessSpawnError.isInstance(error)).toBe(true);
    expect((error as ProcessSpawnError).errno).toBe('ENOENT');
    expect((error as ProcessSpawnError).message).toContain('definitely-not-a-program-xyz');
  });
});
