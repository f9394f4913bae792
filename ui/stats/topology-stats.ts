/**
 * Storm UI's windowed statistics (10 minutes, 3 hours, 1 day, all time) for
 * every task, kept in nimbus's process from the worker heartbeats it samples
 * (a HeartbeatSink of its read model, fed on the monitor tick). Workers
 * report cumulative counters since they started; nimbus turns consecutive
 * samples of the same worker incarnation into deltas and adds them to
 * time buckets on its own clock.
 *
 * What nimbus has not seen is not invented:
 * - A worker that was already running when nimbus started brings counts of
 *   an unknown time: they count towards all-time only, never towards a
 *   window. A worker that started after nimbus has its first counts placed at
 *   the sample that brought them (they are at most one heartbeat old).
 * - A worker that dies takes with it what it counted after nimbus's last
 *   sample (at most one `nimbus.monitor.freq.secs`).
 * - Only the heartbeat of the slot the assignment gives a task counts, so a
 *   moved task's old worker cannot add to it twice.
 * Like the split history, this is nimbus memory: a restarted nimbus starts
 * its windows empty (and says how much of each window it has observed).
 */
import { workerKey, type Assignment } from '../../common/assignment.js';
import { Histogram, type SparseHistogram } from '../../common/histogram.js';
import type { ParsedWorkerHeartbeat } from '../../common/record-schemas.js';
import type { HeartbeatSink } from '../../nimbus/read-model.js';
import { DEFAULT_BUCKETS, WindowedSums } from './windowed-sums.js';

export const STORM_WINDOWS = ['600', '10800', '86400', ':all-time'] as const;
export type StormWindow = (typeof STORM_WINDOWS)[number];
const WINDOW_SECS = [600, 10_800, 86_400] as const;

/** Counter slots of a task's vector. */
const EMITTED = 0;
const TRANSFERRED = 1;
const EXECUTED = 2;
const ACKED = 3;
const FAILED = 4;
const COMPLETE_N = 5;
const COMPLETE_SUM = 6;
const EXECUTE_N = 7;
const EXECUTE_SUM = 8;
const WIDTH = 9;

export interface WindowStats {
  emitted: number;
  transferred: number;
  executed: number;
  acked: number;
  failed: number;
  /** Mean complete latency (spouts with acking) over the window; null without a completed tuple. */
  completeLatencyMs: number | null;
  /** Mean execute latency (sampled executes) over the window. */
  executeLatencyMs: number | null;
  /** Storm's capacity: executed × mean execute latency / observed time (max over tasks for a component); null for all-time. */
  capacity: number | null;
  /** How much of the window nimbus has observed (ms); null for all-time. */
  observedMs: number | null;
}

export interface TaskPlace {
  component: string;
  supervisorId: string;
  host: string;
  port: number;
  pid: number;
  /** Worker uptime at its latest counted heartbeat. */
  uptimeSecs: number;
}

interface TaskState {
  place: TaskPlace;
  incarnation: string;
  /** Cumulative counters of the current incarnation, as last seen. */
  last: Float64Array;
  /** What earlier incarnations of the task counted (their last samples). */
  retired: Float64Array;
  windows: WindowedSums[];
  /** From when (nimbus clock) this task's counts are in the windows. */
  countedSince: number;
  lastComplete: { hist: SparseHistogram; sum: number; max: number } | null;
  retiredComplete: Histogram | null;
}

export interface StatsHistoryOptions {
  /** When nimbus started (its clock): counts from before are never windowed. */
  startedAt: number;
  /** Buckets per window (Storm: 20). */
  buckets?: number;
  /** Slack for the rounding of worker uptime (whole seconds) when telling a worker that started after nimbus. */
  uptimeSlackMs?: number;
}

export class StatsHistory implements HeartbeatSink {
  private readonly topologies = new Map<string, Map<number, TaskState>>();

  constructor(private readonly opts: StatsHistoryOptions) {}

  /** Folds one sample of a topology's heartbeats in; `now` is nimbus's clock. */
  record(topologyId: string, assignment: Assignment | null, beats: Iterable<ParsedWorkerHeartbeat>, now: number): void {
    let tasks = this.topologies.get(topologyId);
    if (!tasks) this.topologies.set(topologyId, (tasks = new Map()));
    const owner = new Map<number, string>();
    for (const w of assignment?.workers ?? []) for (const e of w.executors) owner.set(e.task, workerKey(w));
    const sinceStart = now - this.opts.startedAt + (this.opts.uptimeSlackMs ?? 1000);
    for (const hb of beats) {
      const key = workerKey(hb);
      const incarnation = `${key}/${hb.pid}`;
      // A worker that started after nimbus: everything it counted happened while nimbus watched.
      const bornWatched = hb.uptimeSecs * 1000 <= sinceStart;
      for (const e of hb.executors) {
        if (assignment && owner.get(e.task) !== key) continue;
        const vec = vectorOf(e);
        const place: TaskPlace = { component: e.component, supervisorId: hb.supervisorId, host: hb.host, port: hb.port, pid: hb.pid, uptimeSecs: hb.uptimeSecs };
        const complete = e.completeHist && e.completeLatencyMs ? { hist: e.completeHist, sum: e.completeSum ?? 0, max: e.completeLatencyMs.max } : null;
        let s = tasks.get(e.task);
        // A task id another component now holds (`rebalance -e` renumbers tasks): what it counted was another
        // component's, so it starts over instead of carrying those counts over as a restarted worker's would.
        if (!s || s.place.component !== e.component) {
          s = {
            place,
            incarnation,
            ...taskMemory(this.opts.buckets),
            countedSince: bornWatched ? now - hb.uptimeSecs * 1000 : now,
            lastComplete: null,
            retiredComplete: null,
          };
          tasks.set(e.task, s);
          this.start(s, vec, complete, bornWatched, now);
          continue;
        }
        if (s.incarnation !== incarnation || vec.some((v, k) => v < s.last[k]!)) {
          this.retire(s);
          s.incarnation = incarnation;
          s.place = place;
          if (!bornWatched) s.countedSince = now;
          this.start(s, vec, complete, bornWatched, now);
          continue;
        }
        const delta = new Float64Array(WIDTH);
        let any = false;
        for (let k = 0; k < WIDTH; k++) {
          delta[k] = vec[k]! - s.last[k]!;
          if (delta[k] !== 0) any = true;
        }
        if (any) for (const w of s.windows) w.add(now, delta);
        s.last.set(vec);
        s.place = place;
        s.lastComplete = complete;
      }
    }
  }

  /** Forgets topologies that are gone. */
  retain(live: ReadonlySet<string>): void {
    for (const id of this.topologies.keys()) if (!live.has(id)) this.topologies.delete(id);
  }

  /** Where each task nimbus has counted last reported from. */
  places(topologyId: string): Map<number, TaskPlace> {
    const out = new Map<number, TaskPlace>();
    for (const [task, s] of this.topologies.get(topologyId) ?? []) out.set(task, { ...s.place });
    return out;
  }

  /** One task's figures over a window; null when nimbus has never seen the task. */
  task(topologyId: string, task: number, window: StormWindow, now: number): WindowStats | null {
    const s = this.topologies.get(topologyId)?.get(task);
    return s ? this.statsOf([s], window, now) : null;
  }

  /** The tasks' figures together (a component); zeros when nimbus has seen none of them. */
  tasks(topologyId: string, tasks: Iterable<number>, window: StormWindow, now: number): WindowStats {
    const states: TaskState[] = [];
    const all = this.topologies.get(topologyId);
    for (const t of tasks) {
      const s = all?.get(t);
      if (s) states.push(s);
    }
    return this.statsOf(states, window, now);
  }

  /** Complete latency of the tasks since they were first seen (all incarnations), merged: for /metrics histograms. */
  completeHistogram(topologyId: string, tasks: Iterable<number>): Histogram {
    const h = new Histogram();
    const all = this.topologies.get(topologyId);
    for (const t of tasks) {
      const s = all?.get(t);
      if (!s) continue;
      if (s.retiredComplete) h.mergeSparse(s.retiredComplete.toSparse(), s.retiredComplete.sum, s.retiredComplete.max);
      if (s.lastComplete) h.mergeSparse(s.lastComplete.hist, s.lastComplete.sum, s.lastComplete.max);
    }
    return h;
  }

  private start(s: TaskState, vec: Float64Array, complete: TaskState['lastComplete'], windowed: boolean, now: number): void {
    if (windowed) for (const w of s.windows) w.add(now, vec);
    s.last.set(vec);
    s.lastComplete = complete;
  }

  private retire(s: TaskState): void {
    for (let k = 0; k < WIDTH; k++) s.retired[k]! += s.last[k]!;
    if (s.lastComplete) {
      s.retiredComplete ??= new Histogram();
      s.retiredComplete.mergeSparse(s.lastComplete.hist, s.lastComplete.sum, s.lastComplete.max);
    }
    s.last.fill(0);
    s.lastComplete = null;
  }

  private statsOf(states: readonly TaskState[], window: StormWindow, now: number): WindowStats {
    const total = new Float64Array(WIDTH);
    const i = WINDOW_SECS.findIndex((w) => String(w) === window);
    let capacity: number | null = i < 0 ? null : 0;
    let observed: number | null = i < 0 ? null : 0;
    for (const s of states) {
      let v: Float64Array;
      if (i < 0) {
        v = new Float64Array(WIDTH);
        for (let k = 0; k < WIDTH; k++) v[k] = s.retired[k]! + s.last[k]!;
      } else {
        v = s.windows[i]!.sum(now);
        const span = Math.max(0, Math.min(WINDOW_SECS[i]! * 1000, now - s.countedSince));
        observed = Math.max(observed ?? 0, span);
        if (span > 0 && v[EXECUTE_N]! > 0) capacity = Math.max(capacity ?? 0, Math.min(1, (v[EXECUTED]! * (v[EXECUTE_SUM]! / v[EXECUTE_N]!)) / span));
      }
      for (let k = 0; k < WIDTH; k++) total[k]! += v[k]!;
    }
    return {
      emitted: total[EMITTED]!,
      transferred: total[TRANSFERRED]!,
      executed: total[EXECUTED]!,
      acked: total[ACKED]!,
      failed: total[FAILED]!,
      completeLatencyMs: total[COMPLETE_N]! > 0 ? round(total[COMPLETE_SUM]! / total[COMPLETE_N]!) : null,
      executeLatencyMs: total[EXECUTE_N]! > 0 ? round(total[EXECUTE_SUM]! / total[EXECUTE_N]!) : null,
      capacity: capacity === null ? null : round(capacity),
      observedMs: observed,
    };
  }
}

/**
 * A task's windows and counter vectors in one allocation (about 5 KB at 20
 * buckets): nimbus holds one per task of every topology, so what a task costs
 * is what a large cluster's nimbus weighs (docs/operations.md).
 */
function taskMemory(buckets = DEFAULT_BUCKETS): Pick<TaskState, 'windows' | 'last' | 'retired'> {
  const per = WindowedSums.doubles(WIDTH, buckets);
  const mem = new Float64Array(WINDOW_SECS.length * per + 2 * WIDTH);
  const tail = WINDOW_SECS.length * per;
  return {
    windows: WINDOW_SECS.map((w, i) => new WindowedSums(w * 1000, WIDTH, buckets, mem.subarray(i * per, (i + 1) * per))),
    last: mem.subarray(tail, tail + WIDTH),
    retired: mem.subarray(tail + WIDTH, tail + 2 * WIDTH),
  };
}

type ExecutorBeat = ParsedWorkerHeartbeat['executors'][number];

function vectorOf(e: ExecutorBeat): Float64Array {
  const v = new Float64Array(WIDTH);
  v[EMITTED] = e.emitted;
  v[TRANSFERRED] = e.transferred;
  v[EXECUTED] = e.executed;
  v[ACKED] = e.acked;
  v[FAILED] = e.failed;
  const c = e.completeLatencyMs;
  v[COMPLETE_N] = c?.count ?? 0;
  v[COMPLETE_SUM] = e.completeSum ?? (c ? c.mean * c.count : 0);
  v[EXECUTE_N] = e.executeLatencyMs.count;
  v[EXECUTE_SUM] = e.executeSum ?? e.executeLatencyMs.mean * e.executeLatencyMs.count;
  return v;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
