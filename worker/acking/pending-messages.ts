/**
 * A spout task's tuples in flight, in columns (message id, emit time, stream)
 * indexed by the root id's high half: the spout numbers its roots there
 * (SpoutExecutor.emit: consecutive numbers from a random start, the low half
 * random), so the slot of a root is `high & mask` — no hash lookup — and the
 * slots of the tuples in flight form one run that moves through the columns as
 * tuples complete, roughly in emit order.
 *
 * The rule: no hash look-up keyed by a random root. Random 64-bit keys land
 * anywhere in a Map's table, and the key BigInts anywhere on the heap, so once
 * the window outgrows the cache each add and take misses it, and CPU per
 * acked tuple grows with max.spout.pending (docs/benchmarks.md, "Acking,
 * second round"). Here both are an array index, the same at any window.
 *
 * A root whose slot is taken (any root not numbered this way, or a tuple
 * still in flight one lap of the columns later) goes to a small Map beside
 * them. Expiry scans both (every sweep of the spout, not per tuple) and hands
 * out the expired oldest first. A tuple's timeout runs from its emit, or from
 * the last time a bolt reset it (OutputCollector.resetTimeout): a column of
 * its own, so that its complete latency still counts from the emit. Roots come as their uint32 halves
 * (ack-ids.ts): no BigInt per tuple.
 */
export interface Taken {
  messageId: unknown;
  emittedAt: number;
  stream: string;
}

/** An overflow entry: its timeout's start beside what a take hands out. */
interface Overflowed extends Taken {
  timeoutFrom: number;
}

const MIN_SLOTS = 1024;
const MAX_SLOTS = 1 << 18;

export class PendingMessages {
  private readonly mask: number;
  private readonly rootLo: Uint32Array;
  private readonly rootHi: Uint32Array;
  private readonly used: Uint8Array;
  private readonly ids: unknown[];
  private readonly streams: (string | undefined)[];
  private readonly emittedAt: Float64Array;
  /** When the timeout started: the emit, or the last reset. */
  private readonly timeoutFrom: Float64Array;
  private inColumns = 0;
  /** Roots whose slot was taken, by `${high}:${low}`: rare. */
  private readonly overflow = new Map<string, Overflowed>();
  /** Reused for every take from the columns: callers copy what they need before calling user code. */
  private readonly out: Taken = { messageId: undefined, emittedAt: 0, stream: '' };

  /** `window`: tuples in flight at most (max.spout.pending); the columns get twice that, a power of two. */
  constructor(window = MIN_SLOTS / 2) {
    let slots = MIN_SLOTS;
    if (!Number.isFinite(window)) window = MIN_SLOTS / 2; // no window: acking is off, nothing is ever pending
    while (slots < 2 * window && slots < MAX_SLOTS) slots *= 2;
    this.mask = slots - 1;
    this.rootLo = new Uint32Array(slots);
    this.rootHi = new Uint32Array(slots);
    this.used = new Uint8Array(slots);
    this.ids = new Array<unknown>(slots).fill(undefined);
    this.streams = new Array<string | undefined>(slots).fill(undefined);
    this.emittedAt = new Float64Array(slots);
    this.timeoutFrom = new Float64Array(slots);
  }

  get size(): number {
    return this.inColumns + this.overflow.size;
  }

  /** Adds the root (lo, hi), its halves uint32. */
  add(lo: number, hi: number, messageId: unknown, stream: string, emittedAt: number): void {
    const s = hi & this.mask;
    if (this.used[s] === 1) {
      this.overflow.set(`${hi}:${lo}`, { messageId, emittedAt, stream, timeoutFrom: emittedAt });
      return;
    }
    this.used[s] = 1;
    this.rootLo[s] = lo;
    this.rootHi[s] = hi;
    this.ids[s] = messageId;
    this.streams[s] = stream;
    this.emittedAt[s] = emittedAt;
    this.timeoutFrom[s] = emittedAt;
    this.inColumns++;
  }

  /** The root (lo, hi)'s timeout starts again at `now` (a bolt reset it); false when it is not in flight. */
  resetTimeout(lo: number, hi: number, now: number): boolean {
    const s = hi & this.mask;
    if (this.used[s] === 1 && this.rootLo[s] === lo && this.rootHi[s] === hi) {
      this.timeoutFrom[s] = now;
      return true;
    }
    const m = this.overflow.size === 0 ? undefined : this.overflow.get(`${hi}:${lo}`);
    if (m === undefined) return false;
    m.timeoutFrom = now;
    return true;
  }

  /** Removes the root (lo, hi); its message (in an object reused by the next take), or null when it is not in flight (timed out). */
  take(lo: number, hi: number): Taken | null {
    const s = hi & this.mask;
    if (this.used[s] === 1 && this.rootLo[s] === lo && this.rootHi[s] === hi) {
      const out = this.out;
      out.messageId = this.ids[s];
      out.emittedAt = this.emittedAt[s]!;
      out.stream = this.streams[s]!;
      this.clear(s);
      return out;
    }
    if (this.overflow.size === 0) return null;
    const key = `${hi}:${lo}`;
    const m = this.overflow.get(key);
    if (m === undefined) return null;
    this.overflow.delete(key);
    const out = this.out;
    out.messageId = m.messageId;
    out.emittedAt = m.emittedAt;
    out.stream = m.stream;
    return out;
  }

  /** Removes every message whose timeout started at or before `deadline` and hands each to `expired`, oldest emit first. */
  expireBefore(deadline: number, expired: (messageId: unknown, emittedAt: number, stream: string) => void): void {
    this.pick((_emittedAt, _stream, timeoutFrom) => timeoutFrom <= deadline, expired);
  }

  /** Removes every message `which` picks and hands each to `removed`, oldest first (a scan: per sweep or event, never per tuple). */
  removeWhere(which: (emittedAt: number, stream: string) => boolean, removed: (messageId: unknown, emittedAt: number, stream: string) => void): void {
    this.pick(which, removed);
  }

  private pick(which: (emittedAt: number, stream: string, timeoutFrom: number) => boolean, removed: (messageId: unknown, emittedAt: number, stream: string) => void): void {
    if (this.size === 0) return;
    const picked: Taken[] = [];
    for (let s = 0; s <= this.mask; s++) {
      if (this.used[s] === 0 || !which(this.emittedAt[s]!, this.streams[s]!, this.timeoutFrom[s]!)) continue;
      picked.push({ messageId: this.ids[s], emittedAt: this.emittedAt[s]!, stream: this.streams[s]! });
      this.clear(s);
    }
    for (const [key, m] of this.overflow) {
      if (!which(m.emittedAt, m.stream, m.timeoutFrom)) continue;
      picked.push({ messageId: m.messageId, emittedAt: m.emittedAt, stream: m.stream });
      this.overflow.delete(key);
    }
    picked.sort((a, b) => a.emittedAt - b.emittedAt);
    for (const m of picked) removed(m.messageId, m.emittedAt, m.stream);
  }

  private clear(s: number): void {
    this.used[s] = 0;
    this.ids[s] = undefined; // the user's message id is theirs to collect
    this.streams[s] = undefined;
    this.inColumns--;
  }
}
