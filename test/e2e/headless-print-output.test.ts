import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';

// `plaited-agent -p` in a pipeline: what happens when stdout stops taking the answer.
let server: ScriptedOpenAIServer;
beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const project = () => mkdtempSync(join(tmpdir(), 'plaited-print-out-'));
const model = () => ['--model', 'openai-compatible:scripted', '--base-url', server.url];

/** Runs `-p` with its stdout on `stdout` (a pipe by default), collecting stderr. */
function startPrint(cwd: string, args: string[], stdout: 'pipe' | number = 'pipe') {
  const child = spawn(process.execPath, [CLI, ...args, ...model()], { cwd, stdio: ['ignore', stdout, 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  return { child, stderr: () => stderr, exited };
}

describe('plaited-agent -p when stdout stops taking the answer', () => {
  it('a reader that went away (| head -1): the turn is cancelled and the exit is 141, with one line and no stack trace', async () => {
    let release!: () => void;
    const more = new Promise<void>((done) => (release = done));
    // The first line, then the rest once the reader is gone.
    server.push({ text: 'first line\nsecond line\nthird line\n', holdAfter: { chunks: 2, until: more } });
    const cwd = project();
    const run = startPrint(cwd, ['-p', 'write three lines']);
    let seen = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await waitFor(() => seen.length > 0, 20_000, 'the first text on stdout');
    run.child.stdout!.destroy(); // as `head -1` does once it has its line
    release();
    expect(await run.exited, run.stderr()).toBe(141);
    expect(run.stderr()).not.toMatch(/\n\s+at |Unhandled 'error' event/);
    expect(run.stderr()).toContain('stdout was closed before the whole answer was written (EPIPE)');
    expect(run.stderr()).toContain('the turn was cancelled');

    // What was said is kept: the session shows the turn, cancelled.
    const shown = await runCliOnce(['sessions', 'list'], { cwd });
    expect(shown.status, shown.stderr).toBe(0);
    const id = shown.stdout.split(/\s+/)[0]!;
    const history = await runCliOnce(['sessions', 'export', id], { cwd });
    expect(history.stdout).toContain('write three lines');
    expect(history.stdout).toContain('cancelled');
  });

  it('a write that fails (a full disk): exit 1 naming the error, never 0 with the answer lost', async () => {
    server.push({ text: 'An answer the disk cannot hold.' });
    const full = openSync('/dev/full', 'w');
    try {
      const run = startPrint(project(), ['-p', 'answer', '--output-format', 'json'], full);
      expect(await run.exited, run.stderr()).toBe(1);
      expect(run.stderr()).toContain('cannot write the answer to stdout (ENOSPC');
      expect(run.stderr()).not.toMatch(/\n\s+at |Unhandled 'error' event/);
    } finally {
      closeSync(full);
    }
  });
});

describe('plaited-agent -p ended by SIGTERM (a CI job cancelled, `timeout`)', () => {
  it('the turn is cancelled, its result still printed, and the exit is 143 as for any process SIGTERM ended', async () => {
    server.push({ text: 'never sent', until: new Promise(() => undefined) });
    const run = startPrint(project(), ['-p', 'take your time', '--output-format', 'json']);
    let stdout = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor(() => server.open() === 1, 20_000, 'the model call');
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);
    expect(run.stderr()).toContain('the turn was cancelled (SIGTERM)');
    expect(JSON.parse(stdout)).toMatchObject({ stopReason: 'cancelled' });
  });
});
