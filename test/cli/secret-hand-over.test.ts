import { spawn, spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireBuiltCli } from '../adapters/sandbox/acp-cli-harness.js';

/**
 * The pieces of issue 21 item 5, each in a real child process (they are about a process's
 * own starting environment, which only a fresh process has): what `/proc/<pid>/environ`
 * shows, the hand-over on a descriptor, and the launcher blanking its own block.
 */
const dist = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'dist/src');

function runNode(code: string, env: Record<string, string>): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}


describe('secrets off the environment block', () => {
  it('a variable set after start is in process.env but not in /proc/<pid>/environ (why the hand-over works)', () => {
    const result = runNode(`process.env.SET_LATER = 'later-value'; console.log(JSON.stringify({ env: process.env.SET_LATER, shown: (await import('node:fs')).readFileSync('/proc/self/environ', 'utf8').includes('later-value') }));`, {});
    expect(JSON.parse(result.stdout)).toEqual({ env: 'later-value', shown: false });
  });

  it('a child handed secrets on a descriptor has them in process.env, not in its block, and the descriptor closed', async () => {
    requireBuiltCli();
    const code = `
      const { receiveSecrets } = await import(${JSON.stringify(join(dist, 'tools/secret-hand-over.js'))});
      const names = receiveSecrets();
      const fs = await import('node:fs');
      let open = true;
      try { fs.fstatSync(3); } catch { open = false; }
      console.log(JSON.stringify({ names, value: process.env.HANDED_API_KEY, marker: process.env.PLAITED_SECRETS_FD ?? null, open, shown: fs.readFileSync('/proc/self/environ', 'utf8').includes('handed-value') }));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      env: { PATH: process.env.PATH ?? '', PLAITED_SECRETS_FD: '3' },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    (child.stdio[3] as Writable).end(JSON.stringify({ HANDED_API_KEY: 'handed-value' }));
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise((done) => child.once('close', done));
    expect(JSON.parse(stdout)).toEqual({ names: ['HANDED_API_KEY'], value: 'handed-value', marker: null, open: false, shown: false });
  });

  it('the launcher blanks the values in its own starting block and keeps the rest', () => {
    requireBuiltCli();
    const code = `
      const { scrubOwnEnviron } = await import(${JSON.stringify(join(dist, 'cli/scrub-own-environ.js'))});
      const done = scrubOwnEnviron(['LAUNCHER_TOKEN']);
      const shown = (await import('node:fs')).readFileSync('/proc/self/environ', 'utf8');
      console.log(JSON.stringify({ done, secret: shown.includes('launcher-secret-value'), other: shown.includes('OTHER_SETTING=kept'), env: process.env.LAUNCHER_TOKEN ?? null }));`;
    const result = runNode(code, { LAUNCHER_TOKEN: 'launcher-secret-value', OTHER_SETTING: 'kept' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ done: true, secret: false, other: true, env: null });
  });
});
