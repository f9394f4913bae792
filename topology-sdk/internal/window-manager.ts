/**
 * Which tuples form which window, and when a tuple leaves for good — the
 * whole of windowing's logic, with no clock, timer or tuple of its own
 * (Storm's WindowManager with its trigger and eviction policies). The
 * caller stamps each item with a time and moves the watermark; this module
 * answers. Unit tests drive it with numbers alone.
 *
 * The model, in one place:
 * - Items are *released* in timestamp order (ties in arrival order) and
 *   numbered 0, 1, … as released (`seq`). In processing time an item is
 *   released when added (its stamp is its arrival); in event time when the
 *   watermark passes it (stamp < watermark), so a window never misses an item
 *   that is still to come — and an item stamped before the watermark is late.
 * - Time-slide windows end on a grid (multiples of the slide, so tasks and
 *   restarts agree) and cover [end − length, end) for a time length, or the
 *   last `length` items stamped before `end` for a count length. A window is
 *   due once the watermark reaches its end (processing time: the clock).
 * - Count-slide windows end at every `slide`-th released item: the last
 *   `length` items for a count length, or the items stamped in
 *   (t − length, t] for a time length, t being the ending item's stamp. An
 *   item added as not counting (a stateful window's replay it had
 *   evaluated) is in windows but not among those `slide`.
 * - Every window is a contiguous run of seqs, so `new` and `expired` are
 *   differences of two runs. Empty windows are skipped; so is a count-length
 *   window on a time slide that has nothing new (after the input stops it
 *   would otherwise repeat every slide for ever).
 * - An item is evicted (the caller acks it) as soon as no future window can
 *   hold it, not one slide later as in Storm: it is held at most length +
 *   slide (count windows: until `length` newer items arrived).
 *
 * `position()` is what a state store must keep to go on where this left off
 * (the grid, the count triggers, the watermark): plain numbers.
 */
import type { WindowSizeDef } from '../../common/topology-def.js';

export interface WindowManagerSpec {
  length: WindowSizeDef;
  slide: WindowSizeDef;
  /** Items wait for the watermark to pass them before they join windows; false: released when added. */
  eventTime: boolean;
}

/** A window to evaluate. Items are in release order (timestamp order). */
export interface ManagedWindow<T> {
  items: T[];
  /** Items not in the previously evaluated window. */
  added: T[];
  /** Items of the previously evaluated window that are not in this one. */
  expired: T[];
  startTs: number;
  endTs: number;
  /** The run of seqs [lo, hi) the window covers. */
  lo: number;
  hi: number;
}

/** Where a manager stands, as plain numbers: enough to continue the same windows after a restart (issue 24's state store). */
export interface WindowPosition {
  version: 1;
  /** Items released so far: the next item's seq. */
  released: number;
  /** Count slides: items released at the last count trigger. */
  lastTrigger: number;
  /** Time slides: the earliest window end not evaluated yet (null before the first item). */
  nextEnd: number | null;
  /** The latest watermark (processing time: the clock at the last advance); null before any. */
  watermark: number | null;
  /** The seq run of the last window evaluated. */
  prev: [number, number] | null;
}

/** What evict returns when nothing left: most calls, so no array is made for them. */
const NONE: readonly never[] = Object.freeze([]);

export type AddResult = 'added' | 'late';

export class WindowManager<T> {
  private readonly lengthIsCount: boolean;
  private readonly slideIsCount: boolean;
  private readonly length: number;
  private readonly slide: number;
  /**
   * Released items not evicted yet, and their stamps: items[head] has seq `base`. Parallel arrays rather than an
   * object per item: adding is on every tuple's path.
   */
  private items: T[] = [];
  private stamps: number[] = [];
  private head = 0;
  /** Seqs failed with a window: left in place (seqs stay contiguous) but in no later window and never evicted. */
  private removed: Set<number> | null = null;
  private base: number;
  /** Event time: added, waiting for the watermark. */
  private pending: { item: T; ts: number; order: number; counts: boolean }[] = [];
  private addOrder = 0;
  private released: number;
  private lastTrigger: number;
  private nextEnd: number | null;
  private wm: number | null;
  private prev: [number, number] | null;
  /** Items of the previous window already evicted (acked): they are the next window's expired. */
  private expiredStash: T[] = [];
  /** The watermark up to which every due window has been handed out (nextWindow returned null). */
  private drainedAt: number | null = null;

  constructor(
    readonly spec: WindowManagerSpec,
    from?: WindowPosition,
  ) {
    for (const [what, s] of [['length', spec.length], ['slide', spec.slide]] as const) {
      if (!(Number.isSafeInteger(s.value) && s.value >= 1)) throw new RangeError(`window ${what} must be a whole number ≥ 1, got ${s.value}`);
    }
    this.lengthIsCount = spec.length.unit === 'count';
    this.slideIsCount = spec.slide.unit === 'count';
    this.length = spec.length.value;
    this.slide = spec.slide.value;
    this.released = from?.released ?? 0;
    this.base = this.released;
    this.lastTrigger = from?.lastTrigger ?? 0;
    this.nextEnd = from?.nextEnd ?? null;
    this.wm = from?.watermark ?? null;
    this.prev = from?.prev ?? null;
  }

  /**
   * Adds an item stamped `ts`. Event time: an item stamped before the watermark is late (not added). `counts` false:
   * with a count slide the item joins windows but does not count toward the slide — a replay a stateful window had
   * evaluated before a restart takes its old place without moving the grid (Storm's StatefulWindowedBoltExecutor).
   */
  add(item: T, ts: number, counts = true): AddResult {
    if (this.spec.eventTime) {
      if (this.wm !== null && ts < this.wm) return 'late';
      this.pending.push({ item, ts, order: this.addOrder++, counts });
      return 'added';
    }
    // Processing time: stamps come from one clock and only grow; an item is never late, and joins at once.
    if (this.wm === null || ts > this.wm) this.wm = ts;
    this.release(item, ts, counts);
    this.drainedAt = null;
    return 'added';
  }

  /** Moves the watermark (processing time: the clock) forward; it never goes back. */
  advance(watermark: number): void {
    if (this.wm !== null && watermark <= this.wm) return;
    this.wm = watermark;
    this.drainedAt = null;
    if (this.pending.length === 0) return;
    const due = this.pending.filter((p) => p.ts < watermark).sort((a, b) => a.ts - b.ts || a.order - b.order);
    if (due.length === 0) return;
    this.pending = this.pending.filter((p) => p.ts >= watermark);
    for (const p of due) this.release(p.item, p.ts, p.counts);
  }

  get watermark(): number | null {
    return this.wm;
  }

  /** Items held: released and not evicted, plus (event time) those waiting for the watermark. */
  get held(): number {
    return this.items.length - this.head - (this.removed?.size ?? 0) + this.pending.length;
  }

  /**
   * Count slides: a window is due (released items reached the next trigger). The windowing bolt asks this on
   * every tuple, so it is a comparison; time slides are due only when the watermark or clock moves.
   */
  countWindowDue(): boolean {
    return this.slideIsCount && this.released - this.lastTrigger >= this.slide;
  }

  /** Count slides in processing time: the next item added ends a window (its stamp becomes the window's end). */
  nextAddEndsWindow(): boolean {
    return this.slideIsCount && this.released + 1 - this.lastTrigger >= this.slide;
  }

  /** The next due window, oldest first; null when none is due (then `evict`). */
  nextWindow(): ManagedWindow<T> | null {
    const w = this.slideIsCount ? this.nextCountWindow() : this.nextTimeWindow();
    if (w === null) this.drainedAt = this.wm;
    return w;
  }

  /** Takes failed items out of every later window; they are not evicted (the caller failed them). */
  remove(items: ReadonlySet<T>): void {
    for (let i = this.head; i < this.items.length; i++) {
      if (items.has(this.items[i]!)) (this.removed ??= new Set()).add(this.base + (i - this.head));
    }
    this.expiredStash = this.expiredStash.filter((x) => !items.has(x));
  }

  /**
   * Items no future window can hold, oldest first: the caller acks them.
   * Call once `nextWindow` returned null, so no due window still needs them.
   */
  evict(): readonly T[] {
    // Count slides: due windows need nothing `gone` lets go. Time slides: only once the due windows were taken.
    if (this.slideIsCount ? this.countWindowDue() : this.drainedAt === null && this.wm !== null) return NONE;
    if (this.head === this.items.length || !this.gone(this.base, this.stamps[this.head]!)) return NONE;
    const out: T[] = [];
    const prev = this.prev;
    while (this.head < this.items.length && this.gone(this.base, this.stamps[this.head]!)) {
      const seq = this.base++;
      const item = this.items[this.head++]!;
      if (this.removed?.delete(seq)) continue;
      out.push(item);
      if (prev && seq >= prev[0] && seq < prev[1]) this.expiredStash.push(item);
    }
    // Compact now and then: shifting one at a time would make eviction quadratic in a large window.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.stamps = this.stamps.slice(this.head);
      this.head = 0;
    }
    if (this.removed?.size === 0) this.removed = null;
    return out;
  }

  /** The oldest item held, released and not evicted, and its stamp; null when none is (a persistent window keeps everything from it on). */
  oldest(): { item: T; ts: number } | null {
    for (let i = this.head; i < this.items.length; i++) {
      if (this.live(this.base + (i - this.head))) return { item: this.items[i]!, ts: this.stamps[i]! };
    }
    return null;
  }

  /** Every item held — released and not evicted, then those waiting for the watermark — and forgets them all. */
  takeAll(): T[] {
    const out: T[] = [];
    for (let i = this.head; i < this.items.length; i++) if (this.live(this.base + (i - this.head))) out.push(this.items[i]!);
    for (const p of this.pending) out.push(p.item);
    this.items = [];
    this.stamps = [];
    this.head = 0;
    this.base = this.released;
    this.pending = [];
    this.removed = null;
    this.expiredStash = [];
    return out;
  }

  /**
   * Puts back what a manager held, right after it was made `from` a position whose `released` is the first of them:
   * the released items in release order, then those still waiting for the watermark (event time). A persistent window
   * rebuilds itself so from the state store.
   */
  restore(released: readonly [T, number][], pending: readonly [T, number][]): void {
    if (this.items.length > this.head || this.pending.length > 0) throw new Error('restore() on a manager that holds items');
    for (const [item, ts] of released) this.release(item, ts);
    for (const [item, ts] of pending) this.pending.push({ item, ts, order: this.addOrder++, counts: true });
  }

  position(): WindowPosition {
    return { version: 1, released: this.released, lastTrigger: this.lastTrigger, nextEnd: this.nextEnd, watermark: this.wm, prev: this.prev ? [...this.prev] : null };
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private release(item: T, ts: number, counts = true): void {
    this.items.push(item);
    this.stamps.push(ts);
    this.released++;
    // Not counted: the next trigger moves on by one with it, so `slide` counted items still end the next window.
    if (!counts && this.slideIsCount) this.lastTrigger++;
  }

  /** The stamp of a live seq; undefined once evicted or before it is released. */
  private tsAt(seq: number): number | undefined {
    if (seq < this.base || seq >= this.released) return undefined;
    return this.stamps[this.head + (seq - this.base)];
  }

  private live(seq: number): boolean {
    return this.removed === null || !this.removed.has(seq);
  }

  /** The first live seq whose stamp is ≥ ts (binary search: slots are in stamp order). */
  private firstAtOrAfter(ts: number, from = this.base, to = this.released): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.tsAt(mid)! < ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first live seq whose stamp is > ts. */
  private firstAfter(ts: number, from = this.base, to = this.released): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.tsAt(mid)! <= ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first grid end strictly after ts. */
  private gridEndAfter(ts: number): number {
    return Math.floor(ts / this.slide) * this.slide + this.slide;
  }

  private nextTimeWindow(): ManagedWindow<T> | null {
    const wm = this.wm;
    if (wm === null) return null;
    for (;;) {
      if (this.base === this.released) return null;
      // Jump over windows that cannot hold a live item: the first one that can ends after the oldest item it may hold.
      const oldest = this.lengthIsCount
        ? this.prev === null
          ? this.base
          : Math.max(this.base, this.prev[1]) // count length: a window with nothing new is skipped, so jump to the first new item
        : this.nextEnd === null
          ? this.base
          : this.firstAtOrAfter(this.nextEnd - this.length);
      if (oldest >= this.released) return null;
      const end = Math.max(this.nextEnd ?? -Infinity, this.gridEndAfter(this.tsAt(oldest)!));
      if (end > wm) {
        this.nextEnd = end;
        return null;
      }
      this.nextEnd = end + this.slide;
      const hi = this.firstAtOrAfter(end);
      const lo = this.lengthIsCount ? Math.max(this.base, hi - this.length) : this.firstAtOrAfter(end - this.length, this.base, hi);
      if (this.lengthIsCount && this.prev !== null && hi <= this.prev[1]) continue;
      const startTs = this.lengthIsCount ? (lo < hi ? this.tsAt(lo)! : end) : end - this.length;
      const w = this.window(lo, hi, startTs, end);
      if (w) return w;
    }
  }

  private nextCountWindow(): ManagedWindow<T> | null {
    for (;;) {
      const p = this.lastTrigger + this.slide;
      if (p > this.released) return null;
      this.lastTrigger = p;
      const t = this.tsAt(p - 1);
      // Evicted already: only when the slide is longer than the window (items between windows), so this one is empty.
      if (t === undefined) continue;
      const lo = this.lengthIsCount ? Math.max(this.base, p - this.length) : this.firstAfter(t - this.length, this.base, p);
      const startTs = this.lengthIsCount ? (lo < p ? this.tsAt(lo)! : t) : t - this.length;
      const w = this.window(lo, p, startTs, t);
      if (w) return w;
    }
  }

  /** The window over seqs [lo, hi), or null when it holds no live item. */
  private window(lo: number, hi: number, startTs: number, endTs: number): ManagedWindow<T> | null {
    const items: T[] = [];
    const added: T[] = [];
    const prev = this.prev;
    for (let s = Math.max(lo, this.base); s < hi; s++) {
      if (!this.live(s)) continue;
      const item = this.items[this.head + (s - this.base)]!;
      items.push(item);
      if (!prev || s >= prev[1] || s < prev[0]) added.push(item);
    }
    if (items.length === 0) return null;
    const expired = this.expiredStash;
    this.expiredStash = [];
    if (prev) {
      for (let s = Math.max(prev[0], this.base); s < Math.min(prev[1], lo); s++) {
        if (this.live(s)) expired.push(this.items[this.head + (s - this.base)]!);
      }
    }
    this.prev = [lo, hi];
    return { items, added, expired, startTs, endTs, lo, hi };
  }

  /** No future window can hold the item of this seq and stamp. */
  private gone(seq: number, ts: number): boolean {
    if (this.lengthIsCount) {
      // The next window is the last `length` items as of a later trigger: at least `lastTrigger + slide` (count
      // slide) or every item released so far (time slide).
      const nextHi = this.slideIsCount ? this.lastTrigger + this.slide : this.released;
      return seq < nextHi - this.length;
    }
    if (this.slideIsCount) {
      // The next window ends at a stamp no earlier than the next trigger item's (known once released), the newest
      // released stamp, or the watermark (nothing later can be stamped before it).
      const trigger = this.tsAt(this.lastTrigger + this.slide - 1);
      const newest = this.released > this.base ? this.tsAt(this.released - 1)! : -Infinity;
      const t = Math.max(trigger ?? -Infinity, newest, this.wm ?? -Infinity);
      return ts <= t - this.length;
    }
    // Time slide: every end up to the watermark is done; the next is on the grid after it (or later, after a jump).
    const nextEnd = Math.max(this.nextEnd ?? -Infinity, this.drainedAt === null ? -Infinity : this.gridEndAfter(this.drainedAt));
    return ts < nextEnd - this.length;
  }
}
