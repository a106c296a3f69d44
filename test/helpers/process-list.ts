import { execFileSync } from 'node:child_process';

/** Command lines of the machine's processes that contain `text` (a unique `sleep N` finds a test's own command). */
export function processesMatching(text: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text));
}

/** A `sleep` duration no other test uses at the same time, so `processesMatching` finds only this one. */
export function uniqueSleep(): string {
  return `sleep ${400 + Math.floor(Math.random() * 50_000)}`;
}
