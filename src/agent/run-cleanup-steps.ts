/**
 * Runs every step, each in its own try, so one that throws cannot skip the ones after it
 * (a failed recorder flush used to leave the session's running turn set forever). Returns
 * the first error, for the caller to report once everything is cleaned up. A step may be
 * async (a store write): it is awaited before the next one starts.
 */
export async function runCleanupSteps(steps: ReadonlyArray<() => unknown>): Promise<{ error: unknown } | undefined> {
  let first: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      first ??= { error };
    }
  }
  return first;
}
