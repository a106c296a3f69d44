/**
 * Runs every step, each in its own try, so one that throws cannot skip the ones after it
 * (a failed recorder flush used to leave the session's running turn set forever). Returns
 * the first error, for the caller to report once everything is cleaned up.
 */
export function runCleanupSteps(steps: ReadonlyArray<() => void>): { error: unknown } | undefined {
  let first: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      step();
    } catch (error) {
      first ??= { error };
    }
  }
  return first;
}
