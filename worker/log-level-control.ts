/**
 * Applies `hstorm set-log-level` in a worker: the StormBase carries a level
 * and when it ends; the worker's logger (and through pino's prototype chain
 * every executor's and component's child logger) switches to it, and back to
 * the worker's own level when it is reset or times out. The clock is
 * injectable for tests.
 */
import type { Logger } from '../common/logger.js';
import type { TopologyLogLevel } from '../common/storm-base.js';

export class LogLevelControl {
  private readonly own: string;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.own = log.level;
  }

  apply(setting: TopologyLogLevel | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const active = setting && (setting.until === null || setting.until > this.now());
    const level = active ? setting.level : this.own;
    if (this.log.level !== level) {
      this.log.level = level;
      this.log.info({ logLevel: level, until: active ? setting.until : null }, 'log level set');
    }
    if (active && setting.until !== null) {
      this.timer = setTimeout(() => this.apply(undefined), setting.until - this.now());
      this.timer.unref();
    }
  }

  get level(): string {
    return this.log.level;
  }
}
