/**
 * storm-starter's SlotBasedCounter and SlidingWindowCounter: counts per object over a window of N slots; each
 * `getCountsThenAdvanceWindow` reports the counts over the whole window, then moves the head one slot on, clearing
 * the oldest slot — the counts of the last N emit periods.
 */
export class SlotBasedCounter<T> {
  private readonly objToCounts = new Map<T, number[]>();

  constructor(private readonly numSlots: number) {
    if (numSlots <= 0) throw new RangeError(`Number of slots must be greater than zero (you requested ${numSlots})`);
  }

  incrementCount(obj: T, slot: number): void {
    let counts = this.objToCounts.get(obj);
    if (!counts) this.objToCounts.set(obj, (counts = new Array<number>(this.numSlots).fill(0)));
    counts[slot]!++;
  }

  getCount(obj: T, slot: number): number {
    return this.objToCounts.get(obj)?.[slot] ?? 0;
  }

  getCounts(): Map<T, number> {
    return new Map([...this.objToCounts].map(([obj, counts]) => [obj, counts.reduce((a, b) => a + b, 0)]));
  }

  wipeSlot(slot: number): void {
    for (const counts of this.objToCounts.values()) counts[slot] = 0;
  }

  wipeZeros(): void {
    for (const [obj, counts] of this.objToCounts) if (counts.every((c) => c === 0)) this.objToCounts.delete(obj);
  }
}

export class SlidingWindowCounter<T> {
  private readonly objCounter: SlotBasedCounter<T>;
  private headSlot = 0;
  private tailSlot: number;

  constructor(private readonly windowLengthInSlots: number) {
    if (windowLengthInSlots < 2) throw new RangeError(`Window length in slots must be at least two (you requested ${windowLengthInSlots})`);
    this.objCounter = new SlotBasedCounter<T>(windowLengthInSlots);
    this.tailSlot = this.slotAfter(this.headSlot);
  }

  incrementCount(obj: T): void {
    this.objCounter.incrementCount(obj, this.headSlot);
  }

  /** The counts over the window, then the window moved on by one slot. */
  getCountsThenAdvanceWindow(): Map<T, number> {
    const counts = this.objCounter.getCounts();
    this.objCounter.wipeZeros();
    this.objCounter.wipeSlot(this.tailSlot);
    this.headSlot = this.tailSlot;
    this.tailSlot = this.slotAfter(this.tailSlot);
    return counts;
  }

  private slotAfter(slot: number): number {
    return (slot + 1) % this.windowLengthInSlots;
  }
}
