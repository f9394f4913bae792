/**
 * Storm's WindowedBoltExecutor: the plain Bolt the builder puts in place of
 * a WindowedBolt (a bolt, despite its name, not one of the worker's
 * executors — the worker runs it as any bolt). The windowing itself is
 * windowing-bolt.ts's; this one keeps the tuples in memory and acks each when
 * it leaves the last window that holds it (docs/windowing.md):
 *
 * - emits from `execute` are anchored to every tuple of the window (unless
 *   the author passes anchors), so a window's output completes their trees;
 * - a window whose `execute` throws, rejects or fails a tuple fails all of
 *   its tuples, and they leave every later window (their spouts replay them);
 * - late tuples (event time, stamped before the watermark) go to the late
 *   stream, anchored, or are dropped and counted; either way they are acked.
 */
import type { Tuple } from '../tuple.js';
import type { TupleIterator, TupleWindow } from '../tuple-window.js';
import { arrayTupleIterator } from './tuple-iterator.js';
import type { ManagedWindow } from './window-manager.js';
import { WindowingBolt } from './windowing-bolt.js';

export type { WindowBatchBolt, WindowedBoltExecutorOptions } from './windowing-bolt.js';

/** A window over tuples in memory: every accessor at hand, and `getIter` over the same array. */
export class TupleWindowImpl implements TupleWindow {
  constructor(readonly w: ManagedWindow<Tuple>) {}
  get(): readonly Tuple[] {
    return this.w.items;
  }
  getNew(): readonly Tuple[] {
    return this.w.added;
  }
  getExpired(): readonly Tuple[] {
    return this.w.expired;
  }
  getIter(): TupleIterator {
    return arrayTupleIterator(this.w.items);
  }
  getStartTimestamp(): number {
    return this.w.startTs;
  }
  getEndTimestamp(): number {
    return this.w.endTs;
  }
}

export class WindowedBoltExecutor extends WindowingBolt<Tuple> {
  protected keep(tuple: Tuple): Tuple {
    return tuple;
  }

  protected evicted(items: readonly Tuple[]): void {
    for (const t of items) this.collector!.ack(t);
  }

  protected windowsOf(group: readonly ManagedWindow<Tuple>[]): TupleWindow[] {
    return group.map((w) => new TupleWindowImpl(w));
  }

  protected anchorsOf(group: readonly ManagedWindow<Tuple>[]): readonly Tuple[] {
    return group.length === 1 ? group[0]!.items : group.flatMap((w) => w.items);
  }

  protected failWindows(group: readonly ManagedWindow<Tuple>[]): void {
    const tuples = new Set(group.flatMap((w) => w.items));
    this.manager!.remove(tuples);
    for (const t of tuples) this.collector!.fail(t);
  }
}
