/**
 * User metrics, as Storm's metrics v2 gives them (`context.registerCounter`,
 * `registerGauge`, `registerHistogram`, `registerMeter`, after Dropwizard's
 * Counter, Gauge, Histogram and Meter). A task's registry is read at every
 * worker heartbeat; the values travel to nimbus with it and appear per
 * component in the REST API, the web UI and `/metrics`.
 *
 * Registering a name again returns the metric already registered under it (as
 * Dropwizard's registry does), so a bolt may register in `prepare` and look
 * up in `execute`; the same name with another kind is an error.
 */
import { HstormError } from '../common/errors.js';
import { Histogram } from '../common/histogram.js';
import type { UserHistogramSnapshot, UserMeterSnapshot, UserMetricsSnapshot } from '../common/storm-base.js';

/** A name becomes a Prometheus label value and a JSON key: keep it printable and short. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;

/** A user metric was registered with a bad name, or under a name already taken by another kind. */
export class MetricRegistrationError extends HstormError {
  constructor(
    message: string,
    readonly metric: string,
  ) {
    super('HSTORM_ERR_SDK_METRIC', message);
  }
}

export class Counter {
  private value = 0;

  inc(n = 1): void {
    this.value += n;
  }

  dec(n = 1): void {
    this.value -= n;
  }

  getCount(): number {
    return this.value;
  }
}

/** A value read when the heartbeat is built; a supplier that throws or returns a non-number reports null. */
export interface Gauge<T = number> {
  getValue(): T;
}

export class UserHistogram {
  private readonly h = new Histogram();

  /** Records one value. Values are bucketed like latencies (0.0001 … 3.6e6 at ~4 %); larger ones share the top bucket, the max stays exact. */
  update(value: number): void {
    if (Number.isFinite(value)) this.h.record(value);
  }

  getCount(): number {
    return this.h.count;
  }

  snapshot(): UserHistogramSnapshot {
    return { ...this.h.stats(), hist: this.h.toWire(), sum: this.h.sum };
  }
}

/** Dropwizard's one-minute rate: an exponentially weighted moving average, decayed by the real time between reads. */
const M1_WINDOW_MS = 60_000;

export class Meter {
  private count = 0;
  private readonly startedAt: number;
  private lastTick: number;
  private uncounted = 0;
  private rate: number | null = null;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
    this.lastTick = this.startedAt;
  }

  mark(n = 1): void {
    this.count += n;
    this.uncounted += n;
  }

  getCount(): number {
    return this.count;
  }

  snapshot(): UserMeterSnapshot {
    const t = this.now();
    const dt = t - this.lastTick;
    if (dt > 0) {
      const instant = (this.uncounted * 1000) / dt;
      const alpha = 1 - Math.exp(-dt / M1_WINDOW_MS);
      this.rate = this.rate === null ? instant : this.rate + alpha * (instant - this.rate);
      this.uncounted = 0;
      this.lastTick = t;
    }
    const elapsed = t - this.startedAt;
    return { count: this.count, meanRate: elapsed > 0 ? round((this.count * 1000) / elapsed) : 0, m1Rate: round(this.rate ?? 0) };
  }
}

type Entry = { kind: 'counter'; m: Counter } | { kind: 'gauge'; m: Gauge<unknown> } | { kind: 'histogram'; m: UserHistogram } | { kind: 'meter'; m: Meter };

/** One task's user metrics. */
export class MetricRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.entries.size;
  }

  counter(name: string): Counter {
    return this.getOrAdd(name, 'counter', () => new Counter());
  }

  /** Registers `gauge` (an object with getValue(), or a function) under `name`; a second registration keeps the first. */
  gauge<T>(name: string, gauge: Gauge<T> | (() => T)): Gauge<T> {
    const g: Gauge<T> = typeof gauge === 'function' ? { getValue: gauge } : gauge;
    return this.getOrAdd(name, 'gauge', () => g) as Gauge<T>;
  }

  histogram(name: string): UserHistogram {
    return this.getOrAdd(name, 'histogram', () => new UserHistogram());
  }

  meter(name: string): Meter {
    return this.getOrAdd(name, 'meter', () => new Meter(this.now));
  }

  /** Every metric's value now; a gauge that throws or is not a finite number reads null. */
  snapshot(): UserMetricsSnapshot {
    const out: UserMetricsSnapshot = { counters: {}, gauges: {}, histograms: {}, meters: {} };
    for (const [name, e] of this.entries) {
      if (e.kind === 'counter') out.counters[name] = e.m.getCount();
      else if (e.kind === 'histogram') out.histograms[name] = e.m.snapshot();
      else if (e.kind === 'meter') out.meters[name] = e.m.snapshot();
      else out.gauges[name] = readGauge(e.m);
    }
    return out;
  }

  private getOrAdd<K extends Entry['kind'], M>(name: string, kind: K, make: () => M): M {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new MetricRegistrationError(
        `metric name ${JSON.stringify(name)} is not allowed: use letters, digits, _ . : - (starting with a letter or _), at most 128 characters`,
        String(name),
      );
    }
    const had = this.entries.get(name);
    if (had) {
      if (had.kind !== kind) throw new MetricRegistrationError(`metric "${name}" is already registered as a ${had.kind}, not a ${kind}`, name);
      return had.m as M;
    }
    const m = make();
    this.entries.set(name, { kind, m } as Entry);
    return m;
  }
}

function readGauge(g: Gauge<unknown>): number | null {
  try {
    const v = g.getValue();
    return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'boolean' ? Number(v) : null;
  } catch {
    return null;
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
