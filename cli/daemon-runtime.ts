/**
 * What the `nimbus` and `supervisor` commands share: waiting for
 * SIGINT/SIGTERM to shut down in order (a second signal exits at once), and
 * bounding how long the shutdown may take.
 */
import type { Logger } from '../common/logger.js';

/** Resolves with the first SIGINT/SIGTERM; a second one exits the process at once. */
export function untilSignal(log: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let seen = false;
    const on = (sig: NodeJS.Signals): void => {
      if (seen) {
        log.warn({ signal: sig }, 'second signal: exiting now');
        process.exit(130);
      }
      seen = true;
      log.info({ signal: sig }, 'shutting down');
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** Flushes a pino logger (its destination is async) before the process ends. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => {
    try {
      log.flush(() => resolve());
    } catch {
      resolve();
    }
  });
}

/** Runs `fn`; resolves true when it settled within `ms`, false when the bound passed first (`fn` keeps running). */
export async function withinBound(ms: number, fn: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([fn().then(() => true, () => true), bound]);
  } finally {
    clearTimeout(timer);
  }
}
