/**
 * pino loggers: one root logger per process, children per topology /
 * component / task. JSON by default (daemons write to files); pretty is left to
 * `pino-pretty` in the reader's terminal. Loggers are passed in, never imported
 * as globals.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export function createLogger(name: string, options: { level?: LevelWithSilent; destination?: number | string } = {}): Logger {
  const level = options.level ?? ((process.env.HSTORM_LOG_LEVEL as LevelWithSilent | undefined) || 'info');
  const dest = pino.destination({ dest: options.destination ?? 1, sync: false, mkdir: true });
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
 * Logs at most `perWindow` messages per `windowMs` for one kind of event and
 * counts the rest, so a flood of garbage cannot flood the log.
 */
export class RateLimitedLog {
  private windowStart = 0;
  private inWindow = 0;
  private suppressed = 0;
  constructor(
    private readonly log: Logger,
    private readonly perWindow = 5,
    private readonly windowMs = 10_000,
  ) {}

  warn(obj: object, msg: string): void {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) this.log.warn({ suppressed: this.suppressed }, `${msg} (similar messages suppressed)`);
      this.windowStart = now;
      this.inWindow = 0;
      this.suppressed = 0;
    }
    if (this.inWindow < this.perWindow) {
      this.inWindow++;
      this.log.warn(obj, msg);
    } else {
      this.suppressed++;
    }
  }
}
