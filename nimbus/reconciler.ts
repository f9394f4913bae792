/**
 * The reconcile loop that keeps assignments right, and what drives it: the
 * store's watches, its session, and the monitor timer.
 *
 * Reconciling is event-driven (DESIGN §3.6): a supervisor's ephemeral node
 * vanishing, a new supervisor, a change under /storms, a submit or kill each
 * trigger a round at once; the monitor (every `nimbus.monitor.freq.secs`)
 * checks worker liveness and runs a round too, which also repairs anything a
 * lost watch missed. All rounds and admin operations run one at a time, under
 * the lock this class holds (`exclusive`).
 *
 * Nothing queues behind a slow round: a monitor tick that finds its previous
 * round still waiting or running is skipped and counted, and events coalesce
 * into one round more; so an operator's submit, kill or rebalance waits for
 * at most the round in progress. A round reads through the watched cache
 * (the ClusterReader it is given), so what did not change costs it no request,
 * and judges liveness in memory (heartbeat-tracker.ts).
 */
import { workerKey, type Assignment } from '../common/assignment.js';
import type { ClusterState, SessionState } from '../common/cluster-state.js';
import { putJson } from '../common/cluster-state/json-node.js';
import { removeNode } from '../common/cluster-state/state-ops.js';
import type { Logger } from '../common/logger.js';
import type { SupervisorInfo } from '../common/resources.js';
import { ZkPaths } from '../common/zk-paths.js';
import { Histogram } from '../common/histogram.js';
import { CONFIG_KEYS, secsToMs, type ConfigRecord } from '../common/config/index.js';
import type { ClusterReader } from './cluster-reader.js';
import type { HeartbeatTracker } from './heartbeat-tracker.js';
import type { NimbusSettings } from './nimbus-config.js';
import { planPlacement } from './placement.js';
import { SupervisorGrace } from './supervisor-grace.js';
import type { TopologyAdmin } from './topology-admin.js';

export interface ReconcilerDeps {
  state: ClusterState;
  reader: ClusterReader;
  tracker: HeartbeatTracker;
  admin: TopologyAdmin;
  settings: NimbusSettings;
  log: Logger;
  /** Runs on every monitor tick beside the round (the heartbeat sampler). */
  onMonitorTick: () => void;
}

export interface RoundOptions {
  checkHeartbeats?: boolean;
  /** Topologies to place afresh whatever their state (rebalance). */
  forced?: ReadonlySet<string>;
}

/** How the monitor has kept up: ticks skipped because the previous round had not ended, how long its rounds took. */
export interface MonitorStats {
  skippedTicks: number;
  /** Duration of monitor rounds (ms), from when the round got the lock to its end. */
  roundMs: Histogram;
  lastRoundMs: number | null;
  /** The latest RECENT_ROUNDS durations, oldest first (a window to judge, where roundMs is since start). */
  recentMs: number[];
}

const RECENT_ROUNDS = 120;

export class Reconciler {
  private lock: Promise<unknown> = Promise.resolve();
  /** Set from a monitor tick until its round ends: the next tick skips while it is set. */
  private monitorRound: Promise<void> | null = null;
  readonly monitor: MonitorStats = { skippedTicks: 0, roundMs: new Histogram(), lastRoundMs: null, recentMs: [] };
  private roundRequested = false;
  private roundLoop: Promise<void> | null = null;
  /** workerKey → until when no topology may take that slot (a worker there just died). */
  private readonly badSlots = new Map<string, number>();
  private deadWorkers = new Map<string, Set<string>>();
  private readonly knownSupervisors = new Set<string>();
  private readonly supervisorGrace: SupervisorGrace;
  private monitorTimer: NodeJS.Timeout | null = null;
  private graceTimer: NodeJS.Timeout | null = null;
  private unsubscribeSession: (() => void) | null = null;
  private stopped = true;

  constructor(private readonly d: ReconcilerDeps) {
    this.supervisorGrace = new SupervisorGrace(d.settings.supervisorGraceMs);
  }

  /** Supervisors seen in the last round. */
  get supervisorCount(): number {
    return this.knownSupervisors.size;
  }

  /** Follows the session, arms the watches, runs a first round (no heartbeat check yet), starts the monitor. */
  async start(): Promise<void> {
    this.stopped = false;
    this.unsubscribeSession = this.d.state.onSessionState((s) => this.onSession(s));
    await this.armWatches();
    await this.exclusive(() => this.round({ checkHeartbeats: false }));
    this.monitorTimer = setInterval(() => this.monitorTick(), this.d.settings.monitorMs);
  }

  /** Stops timers, watches and events at once; `drained` then waits for what still runs. */
  halt(): void {
    this.stopped = true;
    if (this.monitorTimer) clearInterval(this.monitorTimer);
    this.monitorTimer = null;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = null;
    this.unsubscribeSession?.();
  }

  async drained(): Promise<void> {
    await this.lock.catch(() => undefined);
    await this.roundLoop;
    await this.monitorRound;
  }

  /** Runs `fn` under the lock: one admin operation or round at a time. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Coalesces events: however many arrive while a round runs, one more round follows. */
  requestRound(): void {
    if (this.stopped) return;
    this.roundRequested = true;
    if (this.roundLoop) return;
    this.roundLoop = (async () => {
      while (this.roundRequested && !this.stopped) {
        this.roundRequested = false;
        await this.exclusive(() => this.round({})).catch((err: unknown) => this.d.log.warn({ err }, 'reconcile round failed; retrying on the next event or tick'));
      }
      this.roundLoop = null;
    })();
  }

  private monitorTick(): void {
    if (this.stopped) return;
    this.d.onMonitorTick();
    if (this.monitorRound) {
      this.monitor.skippedTicks++;
      return;
    }
    this.monitorRound = this.exclusive(async () => {
      const t0 = performance.now();
      try {
        if (!this.watchesArmed) await this.armWatches();
        await this.round({ checkHeartbeats: true });
      } finally {
        const ms = performance.now() - t0;
        this.monitor.lastRoundMs = ms;
        this.monitor.roundMs.record(ms);
        this.monitor.recentMs.push(ms);
        if (this.monitor.recentMs.length > RECENT_ROUNDS) this.monitor.recentMs.shift();
      }
    })
      .catch((err: unknown) => this.d.log.warn({ err }, 'monitor round failed; retrying on the next tick'))
      .finally(() => (this.monitorRound = null));
  }

  /** One pass: removals due, orphans, dead workers, placement. Caller holds the lock. */
  async round(opts: RoundOptions): Promise<void> {
    const { reader, admin, settings, log } = this.d;
    const now = Date.now();
    const supervisors = this.supervisorGrace.apply(await reader.supervisors(), now);
    this.noteSupervisors(supervisors);
    this.roundAfterGrace(now);
    const stormIds = new Set(await reader.childrenOf(ZkPaths.storms));
    const storms = await reader.storms();
    const assignments = await reader.assignments();

    for (const storm of [...storms.values()]) {
      if (admin.removalDue(storm, now)) {
        await admin.remove(storm);
        storms.delete(storm.id);
        stormIds.delete(storm.id);
        assignments.delete(storm.id);
      }
    }
    await this.removeOrphans(stormIds, assignments);

    for (const [key, until] of this.badSlots) if (until <= now) this.badSlots.delete(key);
    if (opts.checkHeartbeats) {
      const dead = this.d.tracker.check(
        assignments.values(),
        {
          skip: (id) => storms.get(id)?.status === 'killed',
          recordPeriodMs: (id) => recordPeriodMs(storms.get(id)?.config),
        },
        now,
      );
      for (const [topologyId, keys] of dead) {
        log.warn({ topology: topologyId, workers: [...keys] }, 'workers stopped heartbeating; moving their executors');
        for (const key of keys) this.badSlots.set(key, now + settings.taskTimeoutMs);
        this.deadWorkers.set(topologyId, keys);
      }
    }

    const forced = new Set(opts.forced ?? []);
    for (const id of admin.interruptedRebalances(storms.values())) forced.add(id);
    const changes = planPlacement({
      supervisors,
      storms,
      assignments,
      badSlots: new Set(this.badSlots.keys()),
      deadWorkers: this.deadWorkers,
      forced,
      strategy: settings.scheduler,
      fairness: settings.fairness,
      gpuFallbackToCpu: settings.gpuFallbackToCpu,
      now,
    });
    this.deadWorkers = new Map();
    for (const c of changes) {
      await putJson(this.d.state, ZkPaths.assignment(c.topologyId), c.assignment);
      log.info(
        { topology: c.topologyId, epoch: c.assignment.epoch, workers: c.assignment.workers.map(workerKey), unassigned: c.assignment.unassigned.length },
        `assignment written: ${c.why}`,
      );
    }
    await admin.finishInterruptedRebalances(storms.values());
  }

  private async removeOrphans(stormIds: ReadonlySet<string>, assignments: Map<string, Assignment>): Promise<void> {
    for (const id of await this.d.reader.childrenOf(ZkPaths.assignments)) {
      if (stormIds.has(id)) continue;
      this.d.log.info({ topology: id }, 'removing an assignment whose topology is gone');
      await removeNode(this.d.state, ZkPaths.childOf(ZkPaths.assignments, id));
      assignments.delete(id);
    }
    // A worker being stopped writes one last heartbeat, possibly after its topology was removed.
    for (const dir of [ZkPaths.workerbeats, ZkPaths.signals]) {
      for (const id of await this.d.reader.childrenOf(dir)) {
        if (!stormIds.has(id)) await removeNode(this.d.state, ZkPaths.childOf(dir, id), true);
      }
    }
  }

  /** A supervisor in its grace period is looked at again as soon as the grace ends, not at the next monitor tick. */
  private roundAfterGrace(now: number): void {
    const next = this.supervisorGrace.nextExpiry();
    if (next === null || this.graceTimer) return;
    this.graceTimer = setTimeout(() => {
      this.graceTimer = null;
      this.requestRound();
    }, Math.max(0, next - now) + 10);
    this.graceTimer.unref();
  }

  private noteSupervisors(current: ReadonlyMap<string, SupervisorInfo>): void {
    for (const id of current.keys()) if (!this.knownSupervisors.has(id)) this.d.log.info({ supervisor: id }, 'supervisor joined');
    for (const id of this.knownSupervisors) if (!current.has(id)) this.d.log.warn({ supervisor: id }, 'supervisor gone');
    this.knownSupervisors.clear();
    for (const id of current.keys()) this.knownSupervisors.add(id);
  }

  // ── watches and session ──────────────────────────────────────────────────

  private watchesArmed = false;
  /** Bumped on every re-arm so a watcher from an older arming does not start a second chain. */
  private watchGeneration = 0;

  private async armWatches(): Promise<void> {
    const gen = ++this.watchGeneration;
    const arm = async (path: string): Promise<void> => {
      await this.d.state.children(path, (event) => {
        if (this.stopped || gen !== this.watchGeneration) return;
        this.d.log.debug({ path, event: event.type }, 'watch fired');
        this.requestRound();
        arm(path).catch((err: unknown) => {
          this.watchesArmed = false;
          this.d.log.warn({ err, path }, 'could not re-arm a watch; the monitor will retry');
        });
      });
    };
    try {
      await arm(ZkPaths.supervisors);
      await arm(ZkPaths.storms);
      this.watchesArmed = true;
    } catch (err) {
      this.watchesArmed = false;
      this.d.log.warn({ err }, 'could not arm watches; the monitor will retry');
    }
  }

  private lastSession: SessionState = 'connected';

  private onSession(s: SessionState): void {
    const was = this.lastSession;
    this.lastSession = s;
    if (this.stopped || s === was) return;
    if (s === 'connected') {
      this.d.tracker.regainSight();
      this.d.log.info('store session (re)connected; re-reading the cluster');
      this.exclusive(() => this.armWatches()).catch(() => undefined);
      this.requestRound();
    } else {
      this.d.tracker.blind();
      this.d.log.warn({ state: s }, 'store session state changed');
    }
  }
}

/** A topology's metrics record period (`topology.stats.report.secs`) in ms; the default when its record lacks it. */
function recordPeriodMs(config: ConfigRecord | undefined): number {
  const secs = config?.['topology.stats.report.secs'];
  return secsToMs(typeof secs === 'number' ? secs : CONFIG_KEYS['topology.stats.report.secs'].default);
}
