/**
 * Storm's `BaseWindowedBolt.Count` and `BaseWindowedBolt.Duration`: the two
 * units a window length or slide is given in (`withWindow(Count.of(100),
 * Duration.ofSeconds(5))`). Checked when made, so a bad window fails where
 * the topology is built, naming the call. Storm's spellings work beside
 * hstorm's: `new Count(100)`, `Duration.seconds(5)`, `Duration.days(1)`,
 * `new Duration(10, TimeUnit.SECONDS)`.
 */
import { WindowValidationError } from '../common/errors.js';
import { formatMs } from '../common/window-text.js';

/** A number of tuples. `new Count(n)` (Storm's constructor) and `Count.of(n)` are the same. */
export class Count {
  readonly value: number;

  constructor(value: number) {
    this.value = checkCount(value, 'new Count');
  }

  static of(n: number): Count {
    checkCount(n, 'Count.of');
    return new Count(n);
  }

  toString(): string {
    return `${this.value} tuples`;
  }
}

/**
 * Java's `TimeUnit` names for Storm's `new Duration(value, TimeUnit.SECONDS)`, each in ms. Finer units are not there:
 * hstorm's windows are whole milliseconds.
 */
export const TimeUnit = Object.freeze({
  MILLISECONDS: 'MILLISECONDS',
  SECONDS: 'SECONDS',
  MINUTES: 'MINUTES',
  HOURS: 'HOURS',
  DAYS: 'DAYS',
} as const);
export type TimeUnit = (typeof TimeUnit)[keyof typeof TimeUnit];

const UNIT_MS: Readonly<Record<TimeUnit, number>> = { MILLISECONDS: 1, SECONDS: 1000, MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 };

/** A span of time, held in milliseconds (`value`, as Storm's). */
export class Duration {
  readonly value: number;

  /**
   * Storm's `new Duration(value, timeUnit)`: `new Duration(10, TimeUnit.SECONDS)` (the unit also as its name,
   * `'SECONDS'`). hstorm's `Duration.ofSeconds(10)` is the same.
   */
  constructor(value: number, timeUnit: TimeUnit) {
    const ms = Object.hasOwn(UNIT_MS, timeUnit) ? UNIT_MS[timeUnit] : undefined;
    if (ms === undefined) {
      throw new WindowValidationError(`new Duration(${String(value)}, ${String(timeUnit)}): the time unit must be one of ${Object.keys(UNIT_MS).join(', ')} (TimeUnit.SECONDS, …)`);
    }
    this.value = wholeMs(value, ms, `new Duration(${String(value)}, TimeUnit.${timeUnit})`);
  }

  /** Storm's `Duration.of(ms)`. */
  static of(ms: number): Duration {
    return Duration.scaled(ms, 'MILLISECONDS', 'of');
  }

  static ofMillis(ms: number): Duration {
    return Duration.scaled(ms, 'MILLISECONDS', 'ofMillis');
  }

  static ofSeconds(s: number): Duration {
    return Duration.scaled(s, 'SECONDS', 'ofSeconds');
  }

  static ofMinutes(m: number): Duration {
    return Duration.scaled(m, 'MINUTES', 'ofMinutes');
  }

  static ofHours(h: number): Duration {
    return Duration.scaled(h, 'HOURS', 'ofHours');
  }

  /** Storm's `Duration.seconds(n)`: hstorm's ofSeconds. */
  static seconds(s: number): Duration {
    return Duration.scaled(s, 'SECONDS', 'seconds');
  }

  /** Storm's `Duration.minutes(n)`. */
  static minutes(m: number): Duration {
    return Duration.scaled(m, 'MINUTES', 'minutes');
  }

  /** Storm's `Duration.hours(n)`. */
  static hours(h: number): Duration {
    return Duration.scaled(h, 'HOURS', 'hours');
  }

  /** Storm's `Duration.days(n)`. */
  static days(d: number): Duration {
    return Duration.scaled(d, 'DAYS', 'days');
  }

  /** Milliseconds (Storm's `value`). */
  toMillis(): number {
    return this.value;
  }

  toString(): string {
    return formatMs(this.value);
  }

  /** Named after the factory called, so the message names what the author wrote. */
  private static scaled(n: number, unit: TimeUnit, name: string): Duration {
    const d = Object.create(Duration.prototype) as { value: number };
    d.value = wholeMs(n, UNIT_MS[unit], `Duration.${name}(${String(n)})`);
    return d as Duration;
  }
}

function checkCount(n: number, call: string): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new WindowValidationError(`${call}(${String(n)}): a window count must be an integer ≥ 1`);
  return n;
}

function wholeMs(n: number, unitMs: number, call: string): number {
  const total = n * unitMs;
  // 1.5 s is fine; 0.0001 s is not a whole millisecond.
  if (typeof n !== 'number' || !Number.isFinite(n) || !Number.isSafeInteger(total) || total < 0) {
    throw new WindowValidationError(`${call}: a duration must be a whole number of ms ≥ 0`);
  }
  return total;
}
