/**
 * The load report a worker sends each peer every
 * topology.load.update.interval.ms, on the same ZeroMQ link as its tuples:
 * one wire tuple on the system stream `__load`, addressed to no task,
 *   [0, 0, '__load', [seq, sentAtMs, [task, queued, capacity, serviceMs | -1, …]], null]
 * Riding the tuple link (rather than ZooKeeper) keeps the figure as fresh as
 * the link; a report that queues behind data reads as stale, which the
 * receiver measures and bounds.
 */
import type { WireTuple } from '../../transport/wire-codec.js';
import type { TaskLoadFigure } from './task-load.js';

export const LOAD_STREAM = '__load';

export interface LoadReport {
  seq: number;
  /** Sender's wall clock (ms) when it built the report. */
  sentAt: number;
  figures: TaskLoadFigure[];
}

export function encodeLoadReport(r: LoadReport): WireTuple {
  const flat: number[] = [];
  for (const f of r.figures) flat.push(f.task, f.queued, f.capacity, f.serviceMs ?? -1);
  return [0, 0, LOAD_STREAM, [r.seq, r.sentAt, flat], null];
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** The report in a `__load` tuple's values, or null when they are not one (garbage from a peer). */
export function decodeLoadReport(values: readonly unknown[]): LoadReport | null {
  if (values.length !== 3) return null;
  const [seq, sentAt, flat] = values;
  if (!finite(seq) || !finite(sentAt) || !Array.isArray(flat) || flat.length % 4 !== 0) return null;
  const figures: TaskLoadFigure[] = [];
  for (let i = 0; i < flat.length; i += 4) {
    const [task, queued, capacity, service] = [flat[i], flat[i + 1], flat[i + 2], flat[i + 3]] as unknown[];
    if (!finite(task) || !finite(queued) || !finite(capacity) || !finite(service) || queued < 0 || capacity <= 0) return null;
    figures.push({ task, queued, capacity, serviceMs: service < 0 ? null : service });
  }
  return { seq, sentAt, figures };
}
