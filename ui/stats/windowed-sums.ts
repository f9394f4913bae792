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
  /** The doubles one window keeps: a start per bucket, `width` sums per bucket. */
  static doubles(width: number, buckets = DEFAULT_BUCKETS): number {
    return buckets * (width + 1);
  }

  private readonly bucketMs: number;
  /** Start (ms) of the time each bucket holds; -Infinity when empty. */
  private readonly starts: Float64Array;
  /** `width` sums per bucket, bucket after bucket. */
  private readonly values: Float64Array;

  /**
   * `memory` (WindowedSums.doubles long) lets a caller keep many windows in
   * one allocation: nimbus keeps three per task, tens of thousands of tasks on
   * a large cluster, and a typed array per bucket cost 13 KB a task.
   */
  constructor(
    readonly windowMs: number,
    readonly width: number,
    readonly buckets = DEFAULT_BUCKETS,
    memory: Float64Array = new Float64Array(WindowedSums.doubles(width, buckets)),
  ) {
    if (!(windowMs > 0) || !(buckets >= 1)) throw new RangeError(`a window needs a positive length and buckets, got ${windowMs} ms / ${buckets}`);
    if (memory.length !== WindowedSums.doubles(width, buckets)) throw new RangeError(`a window of ${buckets} × ${width} needs ${WindowedSums.doubles(width, buckets)} doubles, got ${memory.length}`);
    this.bucketMs = windowMs / buckets;
    this.starts = memory.subarray(0, buckets).fill(-Infinity);
    this.values = memory.subarray(buckets);
  }

  /** Adds `delta` (one number per counter) at time `t`. */
  add(t: number, delta: ArrayLike<number>): void {
    const slot = Math.floor(t / this.bucketMs);
    const i = ((slot % this.buckets) + this.buckets) % this.buckets;
    const start = slot * this.bucketMs;
    const at = i * this.width;
    if (this.starts[i] !== start) {
      // The bucket last held an older slot: that time has left the window.
      if (this.starts[i]! > start) return; // a delta older than the window: nothing to add it to
      this.starts[i] = start;
      this.values.fill(0, at, at + this.width);
    }
    for (let k = 0; k < this.width; k++) this.values[at + k]! += delta[k] ?? 0;
  }

  /** The sums over the buckets that overlap (now − window, now]. */
  sum(now: number, into = new Float64Array(this.width)): Float64Array {
    const oldest = (Math.floor(now / this.bucketMs) - this.buckets + 1) * this.bucketMs;
    for (let i = 0; i < this.buckets; i++) {
      const s = this.starts[i]!;
      if (s < oldest || s > now) continue;
      const at = i * this.width;
      for (let k = 0; k < this.width; k++) into[k]! += this.values[at + k]!;
    }
    return into;
  }
}
