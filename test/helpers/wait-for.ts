/** Polls until `condition` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `waitFor` for a condition that must ask something (a database, a server) each time. */
export async function waitForAsync(condition: () => Promise<boolean>, timeoutMs = 10_000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
