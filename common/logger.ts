/**
 * pino loggers: one root logger per process, children per topology /
 * component / task. JSON lines when writing to a file or a pipe (workers always
 * do); pino-pretty when a daemon writes to a terminal. Loggers are passed in,
 * never imported as globals.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { PinoPretty as pinoPretty } from 'pino-pretty';
import { MessageRateLimiter } from './message-rate-limiter.js';

export type { Logger };

export function createLogger(name: string, options: { level?: LevelWithSilent; destination?: number | string } = {}): Logger {
  const level = options.level ?? ((process.env.HSTORM_LOG_LEVEL as LevelWithSilent | undefined) || 'info');
  const fd = options.destination ?? 1;
  // A daemon started in a terminal logs for a person (pino-pretty); in a file or a pipe, JSON lines for tools.
  if ((fd === 1 && process.stdout.isTTY) || (fd === 2 && process.stderr.isTTY)) {
    return pino({ name, level, base: { pid: process.pid } }, pinoPretty({ destination: fd, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  const dest = pino.destination({ dest: fd, sync: false, mkdir: true });
  return pino({ name, level, base: { pid: process.pid } }, dest);
}

/**
 * Ends the process once everything logged so far is written: the destination
 * is asynchronous, so `process.exit()` right after a last `log.fatal` would
 * drop exactly the lines that say why a process died. Exits after
 * `timeoutMs` even if the write never completes (a full disk, a closed pipe).
 */
export function flushThenExit(log: Logger, code: number, timeoutMs = 2000): void {
  const timer = setTimeout(() => process.exit(code), timeoutMs);
  try {
    log.flush(() => {
      clearTimeout(timer);
      process.exit(code);
    });
  } catch {
    // A destination that cannot flush (already closed): the timer still ends the process.
  }
}

/** A logger that drops everything (tests, embedded use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * Logs at most `perWindow` occurrences of each message per `windowMs` (a
 * message is its text plus its error's message, so a different error still
 * gets through a flood of one) and counts the rest; the count is logged when
 * that message's window rolls over, or at `flush()`.
 */
export class RateLimitedLog {
  private readonly limiter: MessageRateLimiter;
  constructor(
    private readonly log: Logger,
    perWindow = 5,
    windowMs = 10_000,
    now: () => number = Date.now,
  ) {
    this.limiter = new MessageRateLimiter({ perWindow, windowMs, now });
  }

  warn(obj: object, msg: string): void {
    const err = (obj as { err?: unknown }).err;
    const key = `${msg}\u0000${err instanceof Error ? err.message : ''}`;
    const a = this.limiter.admit(key);
    if (a.suppressedBefore > 0) this.log.warn({ suppressed: a.suppressedBefore }, `${msg} (${a.suppressedBefore} similar messages suppressed)`);
    if (a.show) this.log.warn(obj, msg);
  }

  /** Logs the counts still pending (at shutdown, so the last flood is not lost). */
  flush(): void {
    for (const { key, suppressed } of this.limiter.drain()) {
      const msg = key.slice(0, key.indexOf('\u0000'));
      this.log.warn({ suppressed }, `${msg} (${suppressed} similar messages suppressed)`);
    }
  }
}
