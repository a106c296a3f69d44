import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeStaleNeutralDirs } from '../../../src/adapters/sandbox/library-cwd.js';
import { listQuietly, removeStaleMuxSockets } from '../../../src/adapters/sandbox/stale-mux-sockets.js';

/**
 * What a killed agent's sandbox runtime leaves in $TMPDIR, one per run, and what its next start
 * removes: the library's bridge sockets (`claude-http-<id>.sock`, no pid in the name) and our
 * neutral cwd folders. A live process's own are kept.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-leftovers-'));
  made.push(dir);
  return dir;
}

describe("a killed agent's sandbox leftovers", () => {
  it('removes the bridge sockets nothing listens on, and keeps a live one', async () => {
    const dir = folder();
    const stale = join(dir, 'claude-http-0123456789abcdef.sock');
    // A process that listens and is killed: its socket file stays.
    const killed = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(killed.stdout!, 'data');
    killed.kill('SIGKILL');
    await once(killed, 'exit');
    expect(existsSync(stale)).toBe(true);
    const live = join(dir, 'claude-socks-fedcba9876543210.sock');
    const server = createServer().listen(live);
    await once(server, 'listening');
    try {
      expect(await removeStaleMuxSockets(dir)).toEqual(['claude-http-0123456789abcdef.sock']);
      expect(readdirSync(dir)).toEqual(['claude-socks-fedcba9876543210.sock']);
    } finally {
      server.close();
    }
  });

  it('removes the neutral cwd folders of processes that are gone, once old, and keeps the others', () => {
    const dir = folder();
    const gone = spawnSync('true').pid;
    const old = new Date(Date.now() - 20 * 60 * 1000);
    const make = (name: string, options: { old: boolean; file?: boolean }) => {
      mkdirSync(join(dir, name));
      if (options.file) writeFileSync(join(dir, name, 'kept'), '');
      if (options.old) utimesSync(join(dir, name), old, old);
    };
    make(`plaited-sandbox-cwd-${gone}-Abc123`, { old: true });
    make('plaited-sandbox-cwd-Ghi789', { old: true }); // earlier versions: no pid
    make(`plaited-sandbox-cwd-${process.pid}-Def456`, { old: true }); // alive
    make(`plaited-sandbox-cwd-${gone}-Jkl012`, { old: false }); // too young to tell
    make('plaited-sandbox-cwd-Mno345', { old: true, file: true }); // not empty: not ours to judge
    expect(removeStaleNeutralDirs(dir, listQuietly(dir)).sort()).toEqual([`plaited-sandbox-cwd-${gone}-Abc123`, 'plaited-sandbox-cwd-Ghi789']);
    expect(readdirSync(dir).sort()).toEqual([`plaited-sandbox-cwd-${gone}-Jkl012`, `plaited-sandbox-cwd-${process.pid}-Def456`, 'plaited-sandbox-cwd-Mno345'].sort());
  });
});
