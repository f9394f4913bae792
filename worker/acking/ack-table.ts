/**
 * Storm's acker algorithm, without sockets or queues: per spout tuple (root
 * id) the XOR of every edge id created and acked in its tuple tree. Each edge
 * id enters the XOR twice — once when the tuple is emitted (in the spout's
 * init or its parent's ack) and once when that tuple is acked — so the value
 * returns to zero exactly when every edge has been acked (a false zero needs
 * a 64-bit collision). When it is zero after the spout's init arrived, the
 * tree is complete; a fail anywhere in it fails the root.
 *
 * Trees untouched for one to two rotations (one rotation per message timeout)
 * are forgotten, as in Storm's RotatingMap; their spout times them out.
 *
 * The trees live in a flat open-addressing table of typed arrays (64-bit ids
 * as two uint32 halves), never a Map of objects: an in-flight tree costs no
 * heap object, so the garbage collector's work does not grow with the number
 * of trees in flight. Objects that live as long as a tree (≈ max.spout.pending
 * ÷ throughput) outlive young-generation collections at large windows and are
 * copied and promoted (docs/benchmarks.md, "Acking: where the time goes").
 * Ids come and go as their halves (acking/ack-ids.ts): no BigInt is made per
 * message or per tree. ack-tracker.ts puts a bigint face on this table.
 */

/** Called once per finished tree, with its root's halves: `acked` false when a fail arrived. */
export type TreeDoneHalves = (rootLow: number, rootHigh: number, spoutTask: number, acked: boolean) => void;

const EMPTY = 0;
const USED = 1;
const INITIAL_CAPACITY = 1024;
/** Odd (2^32 / golden ratio): multiplying by it permutes the values mod any power of two. */
const HASH_MULTIPLIER = 0x9e3779b1;

export class AckTable {
  private cap = INITIAL_CAPACITY;
  private mask = INITIAL_CAPACITY - 1;
  private keyLo = new Uint32Array(INITIAL_CAPACITY);
  private keyHi = new Uint32Array(INITIAL_CAPACITY);
  private valLo = new Uint32Array(INITIAL_CAPACITY);
  private valHi = new Uint32Array(INITIAL_CAPACITY);
  /** Spout task; -1 until the init arrived (acks may overtake it). */
  private task = new Int32Array(INITIAL_CAPACITY);
  private failed = new Uint8Array(INITIAL_CAPACITY);
  private slot = new Uint8Array(INITIAL_CAPACITY);
  /** Rotation in which the tree was last touched. */
  private touched = new Uint32Array(INITIAL_CAPACITY);
  private generation = 0;
  private live = 0;

  constructor(private readonly done: TreeDoneHalves) {}

  /** Trees being tracked. */
  get size(): number {
    return this.live;
  }

  /** The spout emitted the root (lo, hi) with first edges XORing to (xorLo, xorHi). */
  init(lo: number, hi: number, xorLo: number, xorHi: number, spoutTask: number): void {
    const i = this.find(lo, hi);
    this.valLo[i] = this.valLo[i]! ^ xorLo;
    this.valHi[i] = this.valHi[i]! ^ xorHi;
    this.task[i] = spoutTask;
    this.check(lo, hi, i);
  }

  /** A tuple of the tree was acked: (valLo, valHi) is its edge XOR the edges of the tuples anchored to it. */
  ack(lo: number, hi: number, valLo: number, valHi: number): void {
    const i = this.find(lo, hi);
    this.valLo[i] = this.valLo[i]! ^ valLo;
    this.valHi[i] = this.valHi[i]! ^ valHi;
    this.check(lo, hi, i);
  }

  fail(lo: number, hi: number): void {
    const i = this.find(lo, hi);
    this.failed[i] = 1;
    this.check(lo, hi, i);
  }

  /**
   * A bolt reset the tree's timeout: it is touched (kept for two more rotations); returns its spout task, to be told
   * too, or -1 when the tree is not here or its init has not arrived (then its spout emitted it moments ago). Unlike
   * Storm's acker it makes no entry for a tree it does not know: that tree completed, or was forgotten and timed out.
   */
  reset(lo: number, hi: number): number {
    let i = Math.imul(hi, HASH_MULTIPLIER) & this.mask;
    for (; this.slot[i] === USED; i = (i + 1) & this.mask) {
      if (this.keyLo[i] === lo && this.keyHi[i] === hi) {
        this.touched[i] = this.generation;
        return this.task[i]!;
      }
    }
    return -1;
  }

  /** One message timeout passed: trees untouched since the previous rotation are dropped (a scan every timeout, not per tuple). */
  rotate(): void {
    this.generation++;
    for (let i = 0; i < this.cap; ) {
      // A removal may move a later entry of the probe run into slot i: look at it again.
      if (this.slot[i] === USED && this.generation - this.touched[i]! >= 2) this.remove(i);
      else i++;
    }
  }

  private check(lo: number, hi: number, i: number): void {
    const spoutTask = this.task[i]!;
    if (spoutTask < 0) return;
    const failed = this.failed[i] === 1;
    if (!failed && (this.valLo[i] !== 0 || this.valHi[i] !== 0)) return;
    this.remove(i);
    this.done(lo, hi, spoutTask, !failed);
  }

  /**
   * The slot of `root`, created (XOR 0, no spout task) when absent. Linear probing on the high half times an odd
   * constant: not the low half (a spout picks roots whose low half selects its own worker's acker, randomLowInBucket),
   * and not the high half as it is (a spout numbers its roots there, PendingMessages: several spouts' runs of
   * consecutive numbers would pile up into long probe chains); the product maps consecutive numbers to distinct,
   * scattered slots.
   */
  private find(lo: number, hi: number): number {
    let i = Math.imul(hi, HASH_MULTIPLIER) & this.mask;
    for (; this.slot[i] === USED; i = (i + 1) & this.mask) {
      if (this.keyLo[i] === lo && this.keyHi[i] === hi) {
        this.touched[i] = this.generation;
        return i;
      }
    }
    this.slot[i] = USED;
    this.keyLo[i] = lo;
    this.keyHi[i] = hi;
    this.valLo[i] = 0;
    this.valHi[i] = 0;
    this.task[i] = -1;
    this.failed[i] = 0;
    this.touched[i] = this.generation;
    this.live++;
    if (this.live * 4 > this.cap) return this.grow(lo, hi);
    return i;
  }

  /**
   * Empties slot i without a tombstone (backward-shift deletion): each later entry of the probe run whose home slot
   * is not between the gap and itself would no longer be found past the gap, so it moves into the gap, which moves on.
   * No tombstones, so no periodic rebuild (the rebuild was ≈ 2 % of the spout worker's busy time).
   */
  private remove(i: number): void {
    const mask = this.mask;
    let gap = i;
    for (let j = (i + 1) & mask; this.slot[j] === USED; j = (j + 1) & mask) {
      const home = Math.imul(this.keyHi[j]!, HASH_MULTIPLIER) & mask;
      // It stays when its home lies cyclically in (gap, j]: its probe from home reaches j without crossing the gap.
      if (gap <= j ? gap < home && home <= j : gap < home || home <= j) continue;
      this.keyLo[gap] = this.keyLo[j]!;
      this.keyHi[gap] = this.keyHi[j]!;
      this.valLo[gap] = this.valLo[j]!;
      this.valHi[gap] = this.valHi[j]!;
      this.task[gap] = this.task[j]!;
      this.failed[gap] = this.failed[j]!;
      this.touched[gap] = this.touched[j]!;
      gap = j;
    }
    this.slot[gap] = EMPTY;
    this.live--;
  }

  /** Rebuilds the table at twice its size (kept at most a quarter full: short probe runs); returns the new slot of (lo, hi). */
  private grow(lo: number, hi: number): number {
    const old = { cap: this.cap, keyLo: this.keyLo, keyHi: this.keyHi, valLo: this.valLo, valHi: this.valHi, task: this.task, failed: this.failed, slot: this.slot, touched: this.touched };
    const cap = this.cap * 2;
    this.cap = cap;
    this.mask = cap - 1;
    this.keyLo = new Uint32Array(cap);
    this.keyHi = new Uint32Array(cap);
    this.valLo = new Uint32Array(cap);
    this.valHi = new Uint32Array(cap);
    this.task = new Int32Array(cap);
    this.failed = new Uint8Array(cap);
    this.slot = new Uint8Array(cap);
    this.touched = new Uint32Array(cap);
    let found = -1;
    for (let j = 0; j < old.cap; j++) {
      if (old.slot[j] !== USED) continue;
      let i = Math.imul(old.keyHi[j]!, HASH_MULTIPLIER) & this.mask;
      while (this.slot[i] !== EMPTY) i = (i + 1) & this.mask;
      this.slot[i] = USED;
      this.keyLo[i] = old.keyLo[j]!;
      this.keyHi[i] = old.keyHi[j]!;
      this.valLo[i] = old.valLo[j]!;
      this.valHi[i] = old.valHi[j]!;
      this.task[i] = old.task[j]!;
      this.failed[i] = old.failed[j]!;
      this.touched[i] = old.touched[j]!;
      if (old.keyLo[j] === lo && old.keyHi[j] === hi) found = i;
    }
    return found;
  }
}
