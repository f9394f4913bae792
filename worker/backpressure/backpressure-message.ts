/**
 * The backpressure status a worker sends each peer (Storm 2's
 * BackPressureStatus), on the same ZeroMQ link as its tuples: one wire tuple
 * on the system stream `__backpressure`, addressed to no task,
 *   [0, 0, '__backpressure', [workerKey, [task, task, …]], null]
 * naming every task of that worker whose queue is overloaded now; a task it
 * no longer names is relieved. A whole snapshot rather than a change, so a
 * status lost with a replaced socket is made good by the next one.
 */
import type { WireTuple } from '../transport/wire-codec.js';

export const BACKPRESSURE_STREAM = '__backpressure';

export interface BackpressureStatus {
  /** The sending worker (common/assignment.ts workerKey). */
  worker: string;
  /** Its tasks overloaded now. */
  overloaded: number[];
}

export function encodeBackpressureStatus(s: BackpressureStatus): WireTuple {
  return [0, 0, BACKPRESSURE_STREAM, [s.worker, s.overloaded], null];
}

/** The status in a `__backpressure` tuple's values, or null when they are not one (garbage from a peer). */
export function decodeBackpressureStatus(values: readonly unknown[]): BackpressureStatus | null {
  if (values.length !== 2) return null;
  const [worker, tasks] = values;
  if (typeof worker !== 'string' || worker.length === 0 || !Array.isArray(tasks)) return null;
  if (!tasks.every((t): t is number => Number.isInteger(t) && (t as number) >= 0)) return null;
  return { worker, overloaded: tasks };
}
