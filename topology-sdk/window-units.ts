/**
 * Storm's `BaseWindowedBolt.Count` and `BaseWindowedBolt.Duration`: the two
 * units a window length or slide is given in (`withWindow(Count.of(100),
 * Duration.ofSeconds(5))`). Checked when made, so a bad window fails where
 * the topology is built, naming the call.
 */
import { WindowValidationError } from '../common/errors.js';
import { formatMs } from '../common/window-text.js';

/** A number of tuples. */
export class Count {
  private constructor(readonly value: number) {}

  static of(n: number): Count {
    if (!Number.isSafeInteger(n) || n < 1) throw new WindowValidationError(`Count.of(${String(n)}): a window count must be an integer ≥ 1`);
    return new Count(n);
  }

  toString(): string {
    return `${this.value} tuples`;
  }
}

/** A span of time, held in milliseconds. */
export class Duration {
  private constructor(readonly value: number) {}

  /** Storm's `Duration.of(ms)`. */
  static of(ms: number): Duration {
    return Duration.ofMillis(ms);
  }

  static ofMillis(ms: number): Duration {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new WindowValidationError(`Duration.ofMillis(${String(ms)}): a duration must be a whole number of ms ≥ 0`);
    return new Duration(ms);
  }

  static ofSeconds(s: number): Duration {
    return Duration.scaled(s, 1000, 'ofSeconds');
  }

  static ofMinutes(m: number): Duration {
    return Duration.scaled(m, 60_000, 'ofMinutes');
  }

  static ofHours(h: number): Duration {
    return Duration.scaled(h, 3_600_000, 'ofHours');
  }

  /** Milliseconds (Storm's `value`). */
  toMillis(): number {
    return this.value;
  }

  toString(): string {
    return formatMs(this.value);
  }

  private static scaled(n: number, ms: number, name: string): Duration {
    const total = n * ms;
    // 1.5 s is fine; 0.0001 s is not a whole millisecond.
    if (!Number.isFinite(n) || !Number.isSafeInteger(total) || total < 0) {
      throw new WindowValidationError(`Duration.${name}(${String(n)}): a duration must be a whole number of ms ≥ 0`);
    }
    return new Duration(total);
  }
}
