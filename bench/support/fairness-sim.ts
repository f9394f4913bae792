/**
 * A discrete-event simulation of one nimbus scheduling a stream of topology
 * submissions on a simulated cluster, through nimbus's own placement round
 * (nimbus/placement.ts → the pure scheduler) — the same code a live nimbus
 * runs, with the store replaced by maps and the clock by the event times.
 *
 * A topology runs once every executor is placed; it then progresses at the
 * rate (workers it got) / (workers it asked for), slowed where its workers'
 * nodes are over-committed — a node whose running workers ask more cores (or
 * memory) than it has runs them at cores / asked — taking the slowest of its
 * nodes (a stream runs at the pace of its slowest stage); it is killed
 * (removed at once, as `hstorm kill --wait 0`) when its work is done. A
 * topology with an executor left out makes no progress (its stream stalls at
 * that component) but holds what it was given. A round runs at every submission, completion
 * and OT expiry, repeated until it changes nothing — as nimbus's event rounds
 * and monitor ticks would. When nothing runs, nothing is left to submit and
 * topologies still wait (each holding part of what another needs: partial
 * placement can deadlock), the simulation stops and says so.
 */
import type { Assignment } from '../../common/assignment.js';
import type { Config } from '../../common/config/index.js';
import type { SupervisorInfo } from '../../common/resources.js';
import type { StormBase } from '../../common/storm-base.js';
import type { TopologyDef } from '../../common/topology-def.js';
import { holdingsOf, totalsOf } from '../../nimbus/fairness-views.js';
import { planPlacement } from '../../nimbus/placement.js';
import { dominantShare, type FairnessOptions, type SchedulerStrategy } from '../../nimbus/scheduler/index.js';

export interface SimJob {
  id: string;
  kind: string;
  /** Submission time, ms from the start. */
  submitAt: number;
  /** Running time at full rate, ms. */
  workMs: number;
  def: TopologyDef;
  /** Effective topology config (built with buildConfig). */
  config: Config;
}

export interface SimPolicy {
  label: string;
  strategy: SchedulerStrategy;
  fairness: FairnessOptions | null;
}

export interface SimSample {
  /** Start of the interval, s. */
  t: number;
  /** Length of the interval, s. */
  dt: number;
  active: number;
  waiting: number;
  /** Jain's index of the active topologies' dominant shares; null when none holds anything. */
  jain: number | null;
  /** Jain's index of the service each active topology gets: its rate (0 while it cannot run). */
  jainSatisfaction: number | null;
  /** GPU memory held by topologies that run / that hold it without running, over the cluster's. */
  gpuMemUsed: number;
  gpuMemIdle: number;
  /** GPU slots held by running topologies, over the cluster's. */
  gpuSlotsUsed: number;
}

export interface SimJobResult {
  id: string;
  kind: string;
  submitAt: number;
  /** When every executor was first placed (it started running), ms; null if never. */
  startedAt: number | null;
  doneAt: number | null;
}

export interface SimResult {
  samples: SimSample[];
  jobs: SimJobResult[];
  makespanMs: number;
  rounds: number;
  /** Set when the simulation stopped with topologies that could never run again. */
  deadlock: { atMs: number; stuck: string[] } | null;
}

/** Jain's fairness index (Σx)² / (n Σx²): 1 when all equal, 1/n when one holds everything. */
export function jain(xs: readonly number[]): number | null {
  const s = xs.reduce((a, b) => a + b, 0);
  const s2 = xs.reduce((a, b) => a + b * b, 0);
  return xs.length && s2 > 0 ? (s * s) / (xs.length * s2) : null;
}

function wantedWorkers(job: SimJob): number {
  return Number(job.config['topology.workers']);
}

export function simulate(supervisorList: SupervisorInfo[], jobs: readonly SimJob[], policy: SimPolicy): SimResult {
  const supervisors = new Map(supervisorList.map((s) => [s.id, s]));
  const totals = totalsOf(supervisorList);
  const gpuSlotsTotal = supervisorList.reduce((n, s) => n + s.gpus.reduce((m, g) => m + g.slots, 0), 0);
  const storms = new Map<string, StormBase>();
  const assignments = new Map<string, Assignment>();
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const results = new Map<string, SimJobResult>(jobs.map((j) => [j.id, { id: j.id, kind: j.kind, submitAt: j.submitAt, startedAt: null, doneAt: null }]));
  const progress = new Map<string, number>();
  const pending = [...jobs].sort((a, b) => a.submitAt - b.submitAt);
  const samples: SimSample[] = [];
  const ot = policy.fairness?.reservationTimeoutMs ?? Infinity;
  let now = 0;
  let rounds = 0;
  let deadlock: SimResult['deadlock'] = null;

  const placedWhole = (id: string): boolean => {
    const a = assignments.get(id);
    return !!a && !a.queue && a.unassigned.length === 0 && a.workers.length > 0;
  };
  /** Per node: min(1, cores / cores asked, memory / memory asked) over the workers of topologies that run. */
  let nodeSpeed = new Map<string, number>();
  const refreshSpeeds = (): void => {
    const asked = new Map<string, { cpu: number; mem: number }>();
    for (const id of storms.keys()) {
      if (!placedWhole(id)) continue;
      for (const w of assignments.get(id)!.workers) {
        const a = asked.get(w.supervisorId) ?? { cpu: 0, mem: 0 };
        a.cpu += w.resources?.cpu ?? 0;
        a.mem += w.resources?.memoryMB ?? 0;
        asked.set(w.supervisorId, a);
      }
    }
    nodeSpeed = new Map();
    for (const [sid, a] of asked) {
      const s = supervisors.get(sid)!;
      nodeSpeed.set(sid, Math.min(1, a.cpu > 0 ? s.cpus / a.cpu : 1, a.mem > 0 ? s.memoryMB / a.mem : 1));
    }
  };
  const rate = (id: string): number => {
    if (!placedWhole(id)) return 0;
    const a = assignments.get(id)!;
    const workers = Math.min(1, a.workers.length / Math.max(1, Math.min(wantedWorkers(byId.get(id)!), a.workers.reduce((n, w) => n + w.executors.length, 0))));
    return workers * Math.min(...a.workers.map((w) => nodeSpeed.get(w.supervisorId) ?? 1));
  };

  const round = (): void => {
    for (let k = 0; k < 4; k++) {
      const changes = planPlacement({
        supervisors,
        storms,
        assignments,
        badSlots: new Set(),
        deadWorkers: new Map(),
        forced: new Set(),
        strategy: policy.strategy,
        fairness: policy.fairness,
        gpuFallbackToCpu: false,
        now,
      });
      rounds++;
      if (!changes.length) break;
      for (const c of changes) assignments.set(c.topologyId, c.assignment);
    }
    refreshSpeeds();
    for (const id of storms.keys()) {
      const r = results.get(id)!;
      if (r.startedAt === null && rate(id) > 0) r.startedAt = now;
    }
  };

  const sample = (dt: number): void => {
    const active = [...storms.keys()];
    const shares: number[] = [];
    const satisfied: number[] = [];
    let gpuUsed = 0;
    let gpuIdle = 0;
    let slots = 0;
    let waiting = 0;
    for (const id of active) {
      const a = assignments.get(id) ?? null;
      const held = holdingsOf(storms.get(id), a);
      shares.push(dominantShare(held, totals).share);
      // The service it gets: the rate it runs at (workers it got, slowed by over-committed nodes), 0 while it cannot run.
      satisfied.push(rate(id));
      if (rate(id) > 0) {
        gpuUsed += held.gpuMemoryMB;
        slots += a?.workers.filter((w) => w.gpu).length ?? 0;
      } else {
        gpuIdle += held.gpuMemoryMB;
        waiting++;
      }
    }
    samples.push({
      t: now / 1000,
      dt: dt / 1000,
      active: active.length,
      waiting,
      jain: jain(shares),
      jainSatisfaction: jain(satisfied),
      gpuMemUsed: totals.gpuMemoryMB ? gpuUsed / totals.gpuMemoryMB : 0,
      gpuMemIdle: totals.gpuMemoryMB ? gpuIdle / totals.gpuMemoryMB : 0,
      gpuSlotsUsed: gpuSlotsTotal ? slots / gpuSlotsTotal : 0,
    });
  };

  while (pending.length || storms.size) {
    // The next event: a submission, a completion at the current rates, or a waiting topology reaching OT.
    let next = pending[0]?.submitAt ?? Infinity;
    for (const id of storms.keys()) {
      const r = rate(id);
      if (r > 0) next = Math.min(next, now + (byId.get(id)!.workMs - (progress.get(id) ?? 0)) / r);
      const q = assignments.get(id)?.queue;
      if (q && q.state === 'waiting' && q.since + ot > now) next = Math.min(next, q.since + ot);
    }
    if (next === Infinity) {
      deadlock = { atMs: now, stuck: [...storms.keys()] };
      break;
    }
    const dt = Math.max(0, next - now);
    if (dt > 0) sample(dt);
    for (const id of storms.keys()) progress.set(id, (progress.get(id) ?? 0) + rate(id) * dt);
    now = next;

    for (const id of [...storms.keys()]) {
      if ((progress.get(id) ?? 0) >= byId.get(id)!.workMs - 1e-6) {
        storms.delete(id);
        assignments.delete(id);
        results.get(id)!.doneAt = now;
      }
    }
    while (pending.length && pending[0]!.submitAt <= now) {
      const j = pending.shift()!;
      storms.set(j.id, { version: 1, id: j.id, name: j.id, status: 'active', launchTime: j.submitAt, def: j.def, config: { ...j.config }, code: { kind: 'path', path: '/sim.js' } });
    }
    round();
  }
  return { samples, jobs: [...results.values()], makespanMs: now, rounds, deadlock };
}
