import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { ProcessSpawnError } from '../../src/tools/process-spawn-error.js';
import { createWorkspace, markedProcesses, pgrep, waitForProcesses, type Workspace } from './tool-test-helpers.js';

let ws: Workspace;
const { marker, killMarked } = markedProcesses();
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  killMarked();
  await ws.cleanup();
});

describe('createLocalRuntime: files', () => {
  it('reports kind local and an absolute cwd', () => {
    const runtime = createLocalRuntime(ws.cwd);
    expect(runtime.kind).toBe('local');
    expect(runtime.cwd).toBe(ws.cwd);
  });

  it('writes a file, creating parent folders, and reads it back', async () => {
    const file = path.join(ws.cwd, 'a', 'b', 'c.txt');
    await ws.runtime.writeFile(file, 'héllo\n');
    expect(await readFile(file, 'utf8')).toBe('héllo\n');
    expect(await ws.runtime.readFile(file)).toBe('héllo\n');
  });

  it('rejects a write under /proc with ENOENT: making its folder does not spin for ever (as Node\'s recursive mkdir does)', async () => {
    const runtime = createLocalRuntime(ws.cwd);
    await expect(runtime.writeFile('/proc/plaited-agent/notes.txt', 'x')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a named pipe at once, for reads and writes, and the file threads stay free', async () => {
    // Opened plainly, each call would wait for the pipe's other end on one of libuv's four file threads, for good.
    spawnSync('mkfifo', [path.join(ws.cwd, 'pipe')]);
    const runtime = createLocalRuntime(ws.cwd);
    const refusals = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => runtime.readTextWindow!('pipe', { offset: 1, limit: 10, maxBytes: 1024 })),
      runtime.readFile('pipe'),
      runtime.writeFile('pipe', 'x'),
    ]);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ status: 'rejected', reason: { code: 'not_a_regular_file', message: expect.stringContaining('pipe is a named pipe, not a regular file') } });
    }
    await runtime.writeFile('after.txt', 'still served');
    expect(await runtime.readFile('after.txt')).toBe('still served');
  });

  it('names a folder as a folder when asked to read or write it as a file', async () => {
    const runtime = createLocalRuntime(ws.cwd);
    await mkdir(path.join(ws.cwd, 'folder'));
    await expect(runtime.readFile('folder')).rejects.toMatchObject({ code: 'not_a_regular_file', found: 'a folder' });
    await expect(runtime.writeFile('folder', 'x')).rejects.toMatchObject({ code: 'not_a_regular_file', found: 'a folder' });
  });

  it('rejects reading a missing file with ENOENT', async () => {
    await expect(ws.runtime.readFile(path.join(ws.cwd, 'missing.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('createLocalRuntime: exec', () => {
  it('runs bash in cwd with stdout and stderr interleaved', async () => {
    const result = await ws.runtime.exec('pwd; echo out; echo err >&2; echo out2');
    expect(result).toMatchObject({ exitCode: 0, signal: null, truncated: false, timedOut: false });
    expect(result.output).toBe(`${ws.cwd}\nout\nerr\nout2\n`);
  });

  it('resolves (never rejects) for a non-zero exit', async () => {
    const result = await ws.runtime.exec('echo failing; exit 3');
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe('failing\n');
  });

  it('honours cwd and env options', async () => {
    await mkdir(path.join(ws.cwd, 'sub'));
    const result = await ws.runtime.exec('pwd; echo "$PLAITED_X"', { cwd: 'sub', env: { PLAITED_X: 'yes' } });
    expect(result.output).toBe(`${path.join(ws.cwd, 'sub')}\nyes\n`);
  });

  it('keeps the tail of long output and reports truncation', async () => {
    const result = await ws.runtime.exec('for i in $(seq 1 5000); do echo "line $i"; done', { maxOutputBytes: 100 });
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(100);
    expect(result.output.endsWith('line 5000\n')).toBe(true);
    expect(result.output).not.toContain('line 1\n');
  });

  it('does not start the kept tail in the middle of a multi-byte character', async () => {
    const result = await ws.runtime.exec(`printf 'ééééééééééééééééééééé'`, { maxOutputBytes: 7 });
    expect(result.truncated).toBe(true);
    expect(result.output).toBe('ééé');
  });

  it('kills the whole process group on timeout', async () => {
    const id = marker();
    const result = await ws.runtime.exec(`bash -c 'sleep 30.${id} & sleep 31.${id}; wait'`, { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(pgrep(id)).toEqual([]);
  });

  it('kills the whole process group on abort, escalating to SIGKILL for children ignoring SIGTERM', async () => {
    const id = marker();
    const controller = new AbortController();
    const running = ws.runtime.exec(`trap '' TERM; sleep 30.${id} & sleep 31.${id}; wait`, {
      signal: controller.signal,
    });
    await waitForProcesses(`sleep 3[01].${id}`, 2);
    controller.abort();
    const result = await running;
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGKILL');
    expect(pgrep(id)).toEqual([]);
  });

  it('returns without waiting for background children that keep the pipes open', async () => {
    const id = marker();
    const result = await ws.runtime.exec(`sleep 30.${id} & echo started`);
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe('started\n');
  });

  it('rejects with ProcessSpawnError when the process cannot start', async () => {
    const error = await ws.runtime.exec('echo hi', { cwd: path.join(ws.cwd, 'no-such-dir') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessSpawnError);
    expect((error as ProcessSpawnError).code).toBe('spawn_failed');
    expect((error as ProcessSpawnError).message).toContain('no-such-dir');
  });

  it('treats an already aborted signal as an immediate stop', async () => {
    const controller = new AbortController();
    controller.abort();
    await writeFile(path.join(ws.cwd, 'flag'), '');
    const result = await ws.runtime.exec('sleep 5; rm flag', { signal: controller.signal });
    expect(result.exitCode).toBeNull();
    expect(await readFile(path.join(ws.cwd, 'flag'), 'utf8')).toBe('');
  });
});
