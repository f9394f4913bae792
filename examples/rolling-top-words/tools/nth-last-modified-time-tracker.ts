/**
 * storm-starter's NthLastModifiedTimeTracker: the time since the N-th last modification — how long the sliding
 * window really spans, which is shorter than configured while it fills up. The clock is injectable (Storm's
 * Time.currentTimeMillis can be simulated the same way).
 */
export class NthLastModifiedTimeTracker {
  private readonly times: number[];

  constructor(
    private readonly numTimesToTrack: number,
    private readonly now: () => number = Date.now,
  ) {
    if (numTimesToTrack < 1) throw new RangeError(`numTimesToTrack must be greater than zero (you requested ${numTimesToTrack})`);
    this.times = new Array<number>(numTimesToTrack).fill(now());
  }

  /** Whole seconds since the oldest tracked modification (and forgets it, as Storm's take() does). */
  secondsSinceOldestModification(): number {
    const oldest = this.times.shift() ?? this.now();
    return Math.floor((this.now() - oldest) / 1000);
  }

  markAsModified(): void {
    this.times.push(this.now());
    while (this.times.length > this.numTimesToTrack) this.times.shift();
  }
}
