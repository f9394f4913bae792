/**
 * Waiting on conditions in tests, with a deadline and the condition named in
 * the error — never a fixed sleep where a condition exists.
 */

/** Polls `fn` until it returns something truthy; a throw counts as "not yet" and is reported at the deadline. */
export async function waitFor<T>(
  what: string,
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 200,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let lastErr: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      lastErr = null;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > until) {
      const why = lastErr ? ` (last error: ${(lastErr as Error).message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Keeps an injected fault in place for `ms`. The fault's length is what such a test puts under test
 * ("ZooKeeper down for 10 s", "an outage longer than the task timeout"), so this is a duration, not a
 * wait for a condition: nothing may be asserted about the interval, and what must follow the fault is
 * waited on with `waitFor` and a deadline.
 */
export function holdFaultFor(ms: number): Promise<void> {
  return sleep(ms);
}

/** Whether a process exists (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but is not ours — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
