import { lstatSync, mkdtempSync, rmSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from './pid-alive.js';

/**
 * `@anthropic-ai/sandbox-runtime` resolves its hard-coded protections
 * (`.claude/commands`, `.claude/agents`, and a ripgrep scan) against
 * `process.cwd()`, not against the command's project, and makes a missing one
 * uncreatable by having bubblewrap create an empty placeholder there, in the
 * user's tree, left behind for good if the agent is killed. The project's real
 * protections come from our policy (src/tools/protected-paths.ts). So while a
 * wrap is being built, the library, and only the library, sees an empty folder
 * of ours as the cwd: nothing there is writable, so it places nothing. Every
 * other caller of `process.cwd()` (other sessions run meanwhile) gets the real one.
 */

const LIBRARY_FRAME = /[\\/]@anthropic-ai[\\/]sandbox-runtime[\\/]/;
const realCwd = process.cwd.bind(process);
let neutral: string | undefined;
let inFlight = 0;
let installed = false;
let exitHooked = false;

/** Our neutral folders, named with their process: `plaited-sandbox-cwd-<pid>-<random>`. */
const NEUTRAL_PREFIX = 'plaited-sandbox-cwd-';
const NEUTRAL_DIR = /^plaited-sandbox-cwd-(?:(\d+)-)?[A-Za-z0-9]{6}$/;
/** A neutral folder lives while wraps are being built (milliseconds): one this old was left. */
const STALE_AFTER_MS = 10 * 60 * 1000;

/** Made for the wraps being built and removed when none is, so an agent killed between commands leaves none in $TMPDIR. */
function neutralDir(): string {
  if (!neutral) {
    neutral = mkdtempSync(join(tmpdir(), `${NEUTRAL_PREFIX}${process.pid}-`));
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', dropNeutralDir);
    }
  }
  return neutral;
}

function dropNeutralDir(): void {
  if (neutral) rmSync(neutral, { recursive: true, force: true });
  neutral = undefined;
}

function install(): void {
  if (installed) return;
  installed = true;
  process.cwd = function cwd(): string {
    if (inFlight > 0 && LIBRARY_FRAME.test(new Error().stack ?? '')) return neutralDir();
    return realCwd();
  };
}

/** Runs `build` (a call into the library) with the library's view of the cwd moved out of the project. */
export async function outsideProjectCwd<T>(build: () => Promise<T>): Promise<T> {
  install();
  neutralDir();
  inFlight++;
  try {
    return await build();
  } finally {
    if (--inFlight === 0) dropNeutralDir();
  }
}

/**
 * Removes the neutral folders that killed processes left in `dir` (one killed while a wrap was
 * being built keeps its own: its exit hook never ran): own, empty, ten minutes old, and of a
 * process that is gone (the names of earlier versions carry no pid; a pid of another pid
 * namespace sharing the folder may look gone, hence the age too). Returns the names removed.
 */
export function removeStaleNeutralDirs(dir: string, names: readonly string[] | null): string[] {
  const removed: string[] = [];
  for (const name of names ?? []) {
    const match = NEUTRAL_DIR.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || stat.uid !== process.getuid?.()) continue;
    if (Date.now() - stat.mtimeMs < STALE_AFTER_MS || (match[1] !== undefined && pidAlive(Number(match[1])))) continue;
    try {
      rmdirSync(path);
      removed.push(name);
    } catch {
      // Not empty, or gone meanwhile: left alone.
    }
  }
  return removed;
}
