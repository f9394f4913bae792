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
   * Every tuple in the window, oldest first, read as it goes (Storm's `getIter`): a persistent stateful window
   * (`withPersistence()`) larger than its `withMaxEventsInMemory` reads its tuples back from the state store a part at
   * a time, and only this way; elsewhere it walks `get()`.
   */
  getIter(): AsyncIterableIterator<Tuple>;
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
