/**
 * The adaptive split as a time series (DESIGN §8: γ, δ and the latencies are
 * metrics): nimbus samples the split metrics the spout tasks put in their
 * worker heartbeats and keeps, per topology, the last `maxPoints` of them in
 * memory, for `GET /api/v1/topologies/:name/timeseries`. A point is added only
 * when a task's heartbeat is newer than the last one recorded for it, so
 * sampling faster than workers beat adds nothing twice. Like the heartbeat
 * tracker, this is nimbus-local memory: a restarted nimbus starts empty.
 */
import type { ParsedWorkerHeartbeat } from '../common/record-schemas.js';

export interface SplitPoint {
  /** Epoch ms of the heartbeat that carried the values (the worker's clock). */
  time: number;
  component: string;
  task: number;
  gamma: number;
  delta: number | null;
  latCpuMs: number | null;
  latGpuMs: number | null;
}

export const DEFAULT_SPLIT_HISTORY_POINTS = 600;

interface Series {
  points: SplitPoint[];
  /** task → time of the newest heartbeat recorded for it. */
  lastBeat: Map<number, number>;
}

export class SplitHistory {
  private readonly series = new Map<string, Series>();

  constructor(readonly maxPoints = DEFAULT_SPLIT_HISTORY_POINTS) {
    if (!(Number.isInteger(maxPoints) && maxPoints > 0)) throw new RangeError(`split history size must be a positive integer, got ${maxPoints}`);
  }

  /** Adds the split metrics of these heartbeats (one topology's) that are newer than what is held. */
  record(topologyId: string, beats: Iterable<ParsedWorkerHeartbeat>): number {
    let s = this.series.get(topologyId);
    const fresh: SplitPoint[] = [];
    for (const hb of beats) {
      for (const e of hb.executors) {
        if (!e.split) continue;
        const last = s?.lastBeat.get(e.task) ?? -Infinity;
        if (hb.time <= last) continue;
        if (!s) this.series.set(topologyId, (s = { points: [], lastBeat: new Map() }));
        s.lastBeat.set(e.task, hb.time);
        const split = e.split as Record<string, unknown>;
        fresh.push({
          time: hb.time,
          component: e.component,
          task: e.task,
          gamma: e.split.gamma,
          delta: numberOrNull(split.delta),
          latCpuMs: numberOrNull(split.latCpuMs),
          latGpuMs: numberOrNull(split.latGpuMs),
        });
      }
    }
    if (!s || fresh.length === 0) return 0;
    // Workers beat independently; keep the series in time order for plotting.
    fresh.sort((a, b) => a.time - b.time || a.task - b.task);
    const newestHeld = s.points[s.points.length - 1]?.time ?? -Infinity;
    s.points.push(...fresh);
    if (newestHeld > fresh[0]!.time) s.points.sort((a, b) => a.time - b.time || a.task - b.task);
    if (s.points.length > this.maxPoints) s.points.splice(0, s.points.length - this.maxPoints);
    return fresh.length;
  }

  /** The held points of a topology, oldest first; `since` (epoch ms) keeps only later ones. */
  points(topologyId: string, since = -Infinity): SplitPoint[] {
    const pts = this.series.get(topologyId)?.points ?? [];
    return pts.filter((p) => p.time > since).map((p) => ({ ...p }));
  }

  /** Drops the series of topologies not in `live` (killed and removed). */
  retain(live: ReadonlySet<string>): void {
    for (const id of this.series.keys()) if (!live.has(id)) this.series.delete(id);
  }
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
