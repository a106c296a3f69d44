import { existsSync, renameSync } from 'node:fs';

/** SQLite's companions of a database file: a journal of the damaged file must not meet a fresh one. */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Moves a damaged SQLite file (and its WAL, shared-memory and journal files) aside to
 * `<path>.damaged` (`.damaged-2`, … when taken), so a fresh file can take its place while what
 * the old one holds stays recoverable. Returns where it went.
 */
export function setAsideDamagedFile(path: string): string {
  let target = `${path}.damaged`;
  for (let n = 2; [target, ...COMPANIONS.map((suffix) => `${target}${suffix}`)].some((taken) => existsSync(taken)); n++) target = `${path}.damaged-${n}`;
  renameSync(path, target);
  for (const suffix of COMPANIONS) {
    if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${target}${suffix}`);
  }
  return target;
}
