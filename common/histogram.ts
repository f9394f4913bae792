/**
 * A log-bucketed latency histogram: constant memory, O(1) record, mergeable
 * across tasks and processes (sparse buckets travel in metrics records), with
 * percentiles accurate to the bucket width (~4 %). What travels is bounded
 * (`toWire`): at most WIRE_BUCKETS entries, however long the histogram has
 * been filling, so a worker's record is as large after an hour as after a
 * minute.
 */
import type { LatencyStats } from './storm-base.js';

const GROWTH = 1.04;
const LOG_GROWTH = Math.log(GROWTH);
/**
 * Smallest resolvable value (ms): 0.1 µs, so a bolt whose execute takes a
 * microsecond or two (a GPU bolt adding a tuple to its batch) reads as that,
 * not as the floor. Everything below lands in bucket 0.
 */
const MIN_MS = 0.0001;
const BUCKETS = Math.ceil(Math.log(3_600_000 / MIN_MS) / LOG_GROWTH) + 1;

export type SparseHistogram = [bucket: number, count: number][];

/** Most entries a histogram puts on the wire (`toWire`). */
export const WIRE_BUCKETS = 32;

/**
 * The ranks a compressed wire histogram keeps exactly: the body every 5 %, the
 * tails finer (p99, p99.9 are what operators read). 26 ranks and the last
 * bucket: at most 27 entries, within WIRE_BUCKETS.
 */
const WIRE_RANKS = [
  0.001, 0.01,
  ...Array.from({ length: 19 }, (_, i) => (i + 1) / 20),
  0.975, 0.99, 0.995, 0.999, 0.9999,
];

export class Histogram {
  private counts = new Float64Array(BUCKETS);
  count = 0;
  sum = 0;
  max = 0;

  record(ms: number): void {
    const v = ms > MIN_MS ? ms : MIN_MS;
    let b = Math.floor(Math.log(v / MIN_MS) / LOG_GROWTH);
    if (b >= BUCKETS) b = BUCKETS - 1;
    this.counts[b]!++;
    this.count++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  /** Value at quantile q in [0,1] (upper edge of the bucket holding it). */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const target = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= target) return b === BUCKETS - 1 ? this.max : Math.min(MIN_MS * GROWTH ** (b + 1), this.max);
    }
    return this.max;
  }

  stats(): LatencyStats {
    return {
      count: this.count,
      mean: this.count ? round(this.sum / this.count) : 0,
      p50: round(this.quantile(0.5)),
      p99: round(this.quantile(0.99)),
      max: round(this.max),
    };
  }

  toSparse(): SparseHistogram {
    const out: SparseHistogram = [];
    for (let b = 0; b < BUCKETS; b++) if (this.counts[b]! > 0) out.push([b, this.counts[b]!]);
    return out;
  }

  /**
   * The sparse form with at most WIRE_BUCKETS entries. A histogram that fills
   * no more buckets travels whole; a wider one travels as the buckets where
   * its cumulative count crosses each of WIRE_RANKS (and its last bucket),
   * each entry holding the count since the previous one. A reader that takes
   * it for the whole (`mergeSparse`, `quantile`) then finds every one of those
   * quantiles in exactly the bucket the whole histogram would give, and any
   * other quantile in the next such bucket above (never below); merged
   * across tasks it stays an upper bound of the same kind. Cumulative
   * latency histograms fill ever more buckets with rare values as they run
   * (a busy word-count worker: 100 buckets after 15 s, 270 after 3 minutes);
   * this keeps what they weigh on the wire flat.
   */
  toWire(): SparseHistogram {
    const full = this.toSparse();
    if (full.length <= WIRE_BUCKETS) return full;
    const out: SparseHistogram = [];
    let seen = 0;
    let sent = 0;
    let r = 0;
    for (let i = 0; i < full.length; i++) {
      const [b, c] = full[i]!;
      seen += c;
      let boundary = i === full.length - 1;
      // The same rank rule as quantile(): the first bucket whose cumulative count reaches ceil(q × count).
      while (r < WIRE_RANKS.length && seen >= Math.max(1, Math.ceil(WIRE_RANKS[r]! * this.count))) {
        boundary = true;
        r++;
      }
      if (boundary) {
        out.push([b, seen - sent]);
        sent = seen;
      }
    }
    return out;
  }

  /** Adds a sparse histogram (with its sum and max) into this one. */
  mergeSparse(sparse: SparseHistogram, sum: number, max: number): void {
    for (const [b, c] of sparse) {
      if (b >= 0 && b < BUCKETS) {
        this.counts[b]! += c;
        this.count += c;
      }
    }
    this.sum += sum;
    if (max > this.max) this.max = max;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.max = 0;
  }
}

/** The upper edge (ms) of a bucket of the sparse form: everything counted in bucket `b` is below it. */
export function bucketUpperMs(b: number): number {
  return MIN_MS * GROWTH ** (b + 1);
}

/** One executor's latency as a heartbeat carries it: the stats, and the sparse histogram behind them. */
export interface LatencyPart {
  stats: LatencyStats | null;
  hist?: SparseHistogram | null;
  sum?: number;
}

/**
 * Percentiles of several executors together, from their merged histograms —
 * averaging per-executor percentiles would be wrong. Parts without a
 * histogram (older heartbeats) are left out.
 */
export function mergeLatency(parts: Iterable<LatencyPart>): Histogram {
  const h = new Histogram();
  for (const p of parts) if (p.hist && p.stats) h.mergeSparse(p.hist, p.sum ?? 0, p.stats.max);
  return h;
}

/** Three decimals of a ms, but three significant digits below 1 ms, so microseconds survive. */
function round(x: number): number {
  return x >= 1 || x === 0 ? Math.round(x * 1000) / 1000 : Number(x.toPrecision(3));
}
