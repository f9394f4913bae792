/**
 * Sums of a few counters over a sliding time window, the way Storm's UI keeps
 * its 10-minute, 3-hour and 1-day figures: the window is cut into a fixed
 * number of buckets (20, as Storm's rolling windows), each added to as deltas
 * arrive, and the sum is over the buckets that still overlap the window. So a
 * 10-minute window answers for the last 9.5 to 10 minutes — the bucket width
 * is the precision. Time comes from the caller (nimbus's clock): pure and
 * testable.
 */
export const DEFAULT_BUCKETS = 20;

export class WindowedSums {
  private readonly bucketMs: number;
  /** Start (ms) of the time each bucket holds; -Infinity when empty. */
  private readonly starts: Float64Array;
  private readonly values: Float64Array[];

  constructor(
    readonly windowMs: number,
    readonly width: number,
    readonly buckets = DEFAULT_BUCKETS,
  ) {
    if (!(windowMs > 0) || !(buckets >= 1)) throw new RangeError(`a window needs a positive length and buckets, got ${windowMs} ms / ${buckets}`);
    this.bucketMs = windowMs / buckets;
    this.starts = new Float64Array(buckets).fill(-Infinity);
    this.values = Array.from({ length: buckets }, () => new Float64Array(width));
  }

  /** Adds `delta` (one number per counter) at time `t`. */
  add(t: number, delta: ArrayLike<number>): void {
    const slot = Math.floor(t / this.bucketMs);
    const i = ((slot % this.buckets) + this.buckets) % this.buckets;
    const start = slot * this.bucketMs;
    const v = this.values[i]!;
    if (this.starts[i] !== start) {
      // The bucket last held an older slot: that time has left the window.
      if (this.starts[i]! > start) return; // a delta older than the window: nothing to add it to
      this.starts[i] = start;
      v.fill(0);
    }
    for (let k = 0; k < this.width; k++) v[k]! += delta[k] ?? 0;
  }

  /** The sums over the buckets that overlap (now − window, now]. */
  sum(now: number, into = new Float64Array(this.width)): Float64Array {
    const oldest = (Math.floor(now / this.bucketMs) - this.buckets + 1) * this.bucketMs;
    for (let i = 0; i < this.buckets; i++) {
      const s = this.starts[i]!;
      if (s < oldest || s > now) continue;
      const v = this.values[i]!;
      for (let k = 0; k < this.width; k++) into[k]! += v[k]!;
    }
    return into;
  }
}
