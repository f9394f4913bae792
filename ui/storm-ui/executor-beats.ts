/**
 * What a topology's current heartbeats say per task and per component beyond
 * the counters: the errors tasks reported, and the GPU backend and adapter of
 * GPU components (their user metrics are folded by common/user-metrics-fold.ts).
 * Only the heartbeat of the slot the assignment gives a task counts (a moved
 * task's old worker may have left a last beat behind).
 */
import type { Assignment } from '../../common/assignment.js';
import type { ParsedWorkerHeartbeat } from '../../common/record-schemas.js';

import { gpuSummary, rollup, type ComponentGpuSummary } from '../../common/metrics-rollup.js';

export type ExecutorBeat = ParsedWorkerHeartbeat['executors'][number];

export interface TaskBeat {
  task: number;
  component: string;
  metrics: ExecutorBeat;
  host: string;
  port: number;
  supervisorId: string;
  uptimeSecs: number;
}

/** The beat of every task from the slot that holds it now, by task. */
export function taskBeats(assignment: Assignment | null, beats: ReadonlyMap<string, ParsedWorkerHeartbeat>): Map<number, TaskBeat> {
  const out = new Map<number, TaskBeat>();
  for (const w of assignment?.workers ?? []) {
    const hb = beats.get(`${w.supervisorId}-${w.port}`);
    if (!hb) continue;
    const mine = new Set(w.executors.map((e) => e.task));
    for (const m of hb.executors) {
      if (!mine.has(m.task)) continue;
      out.set(m.task, { task: m.task, component: m.component, metrics: m, host: hb.host, port: hb.port, supervisorId: hb.supervisorId, uptimeSecs: hb.uptimeSecs });
    }
  }
  return out;
}

export interface ReportedError {
  time: number;
  error: string;
  host: string;
  port: number;
  task: number;
}

/** The tasks' reported errors, newest first. */
export function errorsOf(list: Iterable<TaskBeat>): ReportedError[] {
  const out: ReportedError[] = [];
  for (const b of list) for (const e of b.metrics.errors ?? []) out.push({ ...e, host: b.host, port: b.port, task: b.task });
  return out.sort((a, b) => b.time - a.time || a.task - b.task);
}

/** A GPU component as the REST API, the UI and /metrics show it: the shared fold (metrics-rollup.ts), plus what was asked for and the rate. */
export interface ComponentGpu extends ComponentGpuSummary {
  requestedBackends: string[];
  tuplesPerSec: number;
}

/** The GPU section of the tasks that have one (GPU bolts), folded; null when none has. */
export function foldGpu(list: readonly ExecutorBeat[]): ComponentGpu | null {
  const summary = gpuSummary(rollup(list));
  if (!summary) return null;
  const out: ComponentGpu = { ...summary, requestedBackends: [], tuplesPerSec: 0 };
  for (const e of list) {
    const g = e.gpu as Record<string, unknown> | undefined;
    if (!g) continue;
    addOnce(out.requestedBackends, g.requestedBackend);
    out.tuplesPerSec = round(out.tuplesPerSec + num(g.tuplesPerSec));
  }
  return out;
}

function addOnce(list: string[], v: unknown): void {
  if (typeof v === 'string' && v && !list.includes(v)) list.push(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
