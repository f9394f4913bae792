/**
 * Prints worker warnings and errors on the console during `hstorm local`,
 * rate-limited per message: a bolt throwing on every tuple shows its error
 * (with the first stack frames) a few times, then one line a window saying
 * how many more were held back, and the rest at the end of the run.
 */
import { MessageRateLimiter } from '../common/message-rate-limiter.js';
import { LEVEL_NAMES, type WorkerLogLine } from './worker-log-tail.js';

export interface WorkerLogConsoleOptions {
  write: (text: string) => void;
  perWindow?: number;
  windowMs?: number;
  now?: () => number;
}

export class WorkerLogConsole {
  private readonly limiter: MessageRateLimiter;
  private readonly labels = new Map<string, string>();
  private readonly write: (text: string) => void;
  /** Lines held back by the rate limit so far. */
  suppressed = 0;

  constructor(opts: WorkerLogConsoleOptions) {
    this.write = opts.write;
    this.limiter = new MessageRateLimiter({ perWindow: opts.perWindow ?? 3, windowMs: opts.windowMs ?? 10_000, ...(opts.now && { now: opts.now }) });
  }

  show(l: WorkerLogLine): void {
    const where = l.component ? `${l.component}${l.task !== null ? `[${l.task}]` : ''}` : 'worker';
    const errHead = l.err?.split('\n')[0] ?? '';
    // One key per message and error, whichever task or worker printed it: eight tasks throwing the same error are one flood.
    const key = `${l.component ?? ''}\u0000${l.msg}\u0000${errHead}`;
    const label = `${LEVEL_NAMES[l.level] ?? l.level} ${where}: ${l.msg}${errHead ? `: ${errHead}` : ''}`;
    this.labels.set(key, label);
    const a = this.limiter.admit(key);
    if (a.suppressedBefore > 0) this.write(`[worker :${l.port}] … ${a.suppressedBefore} more like "${label}" suppressed\n`);
    if (!a.show) {
      this.suppressed++;
      return;
    }
    const stack = l.err ? l.err.split('\n').slice(1).map((s) => `    ${s.trim()}\n`).join('') : '';
    this.write(`[worker :${l.port}] ${LEVEL_NAMES[l.level] ?? l.level} ${where}: ${l.msg}${l.err ? `: ${errHead}` : ''}\n${stack}`);
  }

  /** Reports what is still held back (end of the run). */
  flush(): void {
    for (const { key, suppressed } of this.limiter.drain()) {
      this.write(`[worker] … ${suppressed} more like "${this.labels.get(key) ?? key}" suppressed\n`);
    }
  }
}
