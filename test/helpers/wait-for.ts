/** Polls until `condition` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
