/**
 * What a windowed bolt's `execute` receives (Storm's TupleWindow): the
 * tuples of one window and how it differs from the one before.
 */
import type { Tuple } from './tuple.js';

export interface TupleWindow {
  /** Every tuple in the window, oldest first (by timestamp in event time, by arrival otherwise). */
  get(): readonly Tuple[];
  /** Tuples in this window that were not in the previous one evaluated. */
  getNew(): readonly Tuple[];
  /** Tuples of the previous window evaluated that are not in this one. */
  getExpired(): readonly Tuple[];
  /**
   * Every tuple in the window, oldest first, read as it goes (Storm's `getIter`): Storm's loop
   * `while (it.hasNext()) it.next()`, or `for (const t of window.getIter())`, or `for await (const t of
   * window.getIter())`. A persistent stateful window (`withPersistence()`) larger than its `withMaxEventsInMemory`
   * reads its tuples back from the state store a part at a time, and only with `for await`; elsewhere it walks `get()`.
   */
  getIter(): TupleIterator;
  /**
   * Start of the window in ms: end − length for a time length (inclusive, epoch ms or the event-time
   * scale); the first tuple's timestamp for a count length. Count windows in processing time read the clock once
   * per window: their tuples carry the time the window before them ended.
   */
  getStartTimestamp(): number;
  /** End of the window in ms: the slide's grid point for a time slide (exclusive), the last tuple's timestamp for a count slide. */
  getEndTimestamp(): number;
}

/**
 * What `TupleWindow.getIter()` returns: Storm's `Iterator<Tuple>` (`hasNext()`, `next()` returning the tuple,
 * `forEachRemaining`), iterable with `for…of`, and with `for await…of` (the only way through a persistent window
 * larger than memory: its synchronous reads throw, saying so). Each form walks the window from its start.
 */
export interface TupleIterator extends Iterable<Tuple>, AsyncIterable<Tuple> {
  /** Whether `next()` has a tuple to give. */
  hasNext(): boolean;
  /** The next tuple; throws a RangeError when there is none (Java's NoSuchElementException). */
  next(): Tuple;
  /** Calls `action` with each tuple not read yet. */
  forEachRemaining(action: (tuple: Tuple) => void): void;
  /** Throws: a window is read-only (as Storm's unmodifiable iterator). */
  remove(): never;
}

/**
 * The value of the `late_tuple` field on a late-tuple stream: a copy of the
 * late tuple that can travel to any worker (Storm's DetachedTuple).
 */
export interface LateTuple {
  sourceComponent: string;
  sourceStreamId: string;
  sourceTask: number;
  fields: string[];
  values: unknown[];
}

/** Name of the one field of a late-tuple stream (Storm's WindowedBoltExecutor.LATE_TUPLE_FIELD). */
export const LATE_TUPLE_FIELD = 'late_tuple';
