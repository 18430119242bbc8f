/**
 * Waiting in tests for something another task or process does: poll a condition until it holds
 * or a time limit passes (the test then fails naming what it waited for). Every wait is bounded.
 */

/** Poll `cond` every `intervalMs` until it is true; throws `timed out waiting for <what>` after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 10_000, intervalMs = 5): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
