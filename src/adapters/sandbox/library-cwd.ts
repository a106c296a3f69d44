import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** Made for the wraps being built and removed when none is, so an agent killed between commands leaves none in $TMPDIR. */
function neutralDir(): string {
  if (!neutral) {
    neutral = mkdtempSync(join(tmpdir(), 'plaited-sandbox-cwd-'));
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
