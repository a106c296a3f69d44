import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcessLedger, reapRecordedProcesses } from '../../src/tools/process-ledger.js';
import { processStartTime } from '../../src/tools/process-start-time.js';
import { PROCESS_TAG_ENV } from '../../src/tools/process-tree.js';

/** A real `sleep` in its own group, as spawnProcess starts commands (with its tag, when given). */
function startSleep(tag?: string): { pid: number; exited: Promise<string | null> } {
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore', env: { ...process.env, ...(tag ? { [PROCESS_TAG_ENV]: tag } : {}) } });
  const exited = new Promise<string | null>((done) => child.once('exit', (_code, signal) => done(signal)));
  return { pid: child.pid!, exited };
}

/** A ledger written by an agent that is gone (pid 2^22 + 1 is above Linux's pid_max). */
function deadAgentLedger(dir: string, processes: Array<{ pid: number; start: string; tag: string }>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '4194305.json'), JSON.stringify({ agent: { pid: 4_194_305, start: '1' }, processes }));
}

describe('ProcessLedger and reapRecordedProcesses', () => {
  it('records a process with its start time while it runs and removes the file when none is left', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'plaited-ledger-')), 'processes');
    const ledger = new ProcessLedger(dir);
    ledger.record(process.pid, 'tag-self');
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', `${process.pid}.json`]);
    ledger.forget(process.pid);
    expect(readdirSync(dir)).toEqual(['.gitignore']);
  });

  it('kills a recorded process of a dead agent whose start time and tag match; never a reused pid, never an untagged process', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'plaited-ledger-')), 'processes');
    const reused = startSleep('tag-reused');
    const untagged = startSleep();
    const orphan = startSleep('tag-orphan');
    deadAgentLedger(dir, [
      { pid: reused.pid, start: String(Number(processStartTime(reused.pid)) - 1), tag: 'tag-other' },
      // A ledger planted in the project naming someone else's process: no tag, left alone.
      { pid: untagged.pid, start: processStartTime(untagged.pid)!, tag: 'tag-planted' },
      { pid: orphan.pid, start: processStartTime(orphan.pid)!, tag: 'tag-orphan' },
    ]);
    expect(reapRecordedProcesses(dir)).toBe(1);
    expect(await orphan.exited).toBe('SIGKILL');
    expect(processStartTime(reused.pid)).toBeDefined();
    expect(processStartTime(untagged.pid)).toBeDefined();
    expect(readdirSync(dir)).toEqual([]);
    for (const survivor of [reused, untagged]) {
      process.kill(survivor.pid, 'SIGKILL');
      await survivor.exited;
    }
  });

  it('leaves the ledger of an agent that still runs alone', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'plaited-ledger-')), 'processes');
    const child = startSleep();
    mkdirSync(dir, { recursive: true });
    // This test process plays the live agent: its file is not its own ledger (another pid name).
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ agent: { pid: child.pid, start: processStartTime(child.pid) }, processes: [{ pid: child.pid, start: processStartTime(child.pid), tag: 't' }] }));
    expect(reapRecordedProcesses(dir)).toBe(0);
    expect(processStartTime(child.pid)).toBeDefined();
    process.kill(child.pid, 'SIGKILL');
    await child.exited;
  });

  it('a damaged ledger (garbage, a folder, a named pipe) is passed over and kept, and never waited on at start', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'plaited-ledger-')), 'processes');
    mkdirSync(join(dir, 'folder.json'), { recursive: true });
    writeFileSync(join(dir, 'garbage.json'), '\u0000\u0001 not json');
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);
    expect(reapRecordedProcesses(dir)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['folder.json', 'garbage.json', 'pipe.json']);
  });
});
