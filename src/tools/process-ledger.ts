import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readTextHeadSync } from '../storage/read-text-head.js';
import { join } from 'node:path';
import { ensureFolder } from '../storage/ensure-folder.js';
import { carriesProcessTag, killTaggedProcesses } from './process-tree.js';
import { processStartTime } from './process-start-time.js';

interface Recorded {
  pid: number;
  start: string;
  tag: string;
}

interface LedgerFile {
  agent: { pid: number; start: string };
  processes: Recorded[];
}

/**
 * The tool processes this agent process started and that still run, written to
 * `<dir>/<agent pid>.json` (pid, start time, process tag) as they start and end, so that the
 * next start can reap what an agent killed with SIGKILL left behind: no exit hook runs then,
 * and a command in its own process group outlives its parent. One file per agent, so agents
 * sharing a project never touch each other's children.
 */
export class ProcessLedger {
  readonly #file: string;
  readonly #agent: LedgerFile['agent'];
  readonly #processes = new Map<number, Recorded>();

  constructor(readonly dir: string) {
    this.#agent = { pid: process.pid, start: processStartTime(process.pid) ?? '' };
    this.#file = join(dir, `${process.pid}.json`);
  }

  record(pid: number, tag: string): void {
    const start = processStartTime(pid);
    if (start === undefined) return;
    this.#processes.set(pid, { pid, start, tag });
    this.#write();
  }

  forget(pid: number): void {
    if (this.#processes.delete(pid)) this.#write();
  }

  #write(): void {
    try {
      if (this.#processes.size === 0) return rmSync(this.#file, { force: true });
      ensureFolder(this.dir);
      writeFileSync(join(this.dir, '.gitignore'), '*\n');
      const body: LedgerFile = { agent: this.#agent, processes: [...this.#processes.values()] };
      writeFileSync(`${this.#file}.tmp`, JSON.stringify(body));
      renameSync(`${this.#file}.tmp`, this.#file);
    } catch {
      // Best effort: a read-only project still runs commands; only the reaping after a crash is lost.
    }
  }
}

let active: ProcessLedger | undefined;

/**
 * Makes `dir` this process's ledger (every `spawnProcess` child is recorded there from now on),
 * after reaping what dead agents recorded in it. The CLI calls it at start with the project's
 * `.plaited/state/processes`; a library user may, for its own process. Returns how many were reaped.
 */
export function useProcessLedger(dir: string): number {
  const reaped = reapRecordedProcesses(dir);
  active = new ProcessLedger(dir);
  return reaped;
}

/** The ledger `useProcessLedger` set, if any. */
export function processLedger(): ProcessLedger | undefined {
  return active;
}

/**
 * Kills what the ledgers in `dir` recorded for agents that are gone (a live agent's file is
 * left alone): each process whose start time still matches, with its process group, and every
 * process carrying its tag. Removes those ledgers. Returns how many recorded commands were found alive.
 */
export function reapRecordedProcesses(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return 0;
  }
  let reaped = 0;
  for (const name of names) {
    const file = join(dir, name);
    const ledger = readLedger(file);
    if (!ledger || ledger.agent.pid === process.pid) continue;
    if (processStartTime(ledger.agent.pid) === ledger.agent.start) continue; // That agent still runs.
    for (const recorded of ledger.processes) {
      // The start time rules out a reused pid; the tag in its environment, a ledger written by
      // anything but us (a file in the project is no proof: a process must carry our tag).
      const alive = processStartTime(recorded.pid) === recorded.start && carriesProcessTag(recorded.pid, recorded.tag);
      // spawnProcess makes each command a group leader: the group goes with it.
      if (alive) signalGroup(recorded.pid);
      if (killTaggedProcesses(recorded.tag) > 0 || alive) reaped++;
    }
    rmSync(file, { force: true });
  }
  return reaped;
}

function readLedger(file: string): LedgerFile | undefined {
  try {
    // Never a pipe waited on at start, nor a huge file held: a ledger lists a few commands.
    const head = readTextHeadSync(file, 1024 * 1024);
    if (head.truncated) return undefined;
    const value = JSON.parse(head.text) as LedgerFile;
    return typeof value?.agent?.pid === 'number' && Array.isArray(value.processes) ? value : undefined;
  } catch {
    return undefined;
  }
}

function signalGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}
