/**
 * One simulator process of `npm run bench -- scale` (bench/scale.bench.ts),
 * started with an IPC channel: it plays a share of the cluster's supervisors
 * and their workers, speaking the real protocol through hstorm's own code —
 *
 * - each supervisor has its own ZooKeeper session and ephemeral node
 *   (SupervisorRegistration, rewritten when its node collector's figures
 *   change: NodeCollector over synthetic CPU and process figures), and sends
 *   nimbus its workers' liveness over HTTP every worker.heartbeat.frequency.secs
 *   (WorkerBeatReporter and nimbusBeatsSink, the supervisor's own);
 * - each worker has its own ZooKeeper session and writes its metrics record
 *   every topology.stats.report.secs (WorkerHeartbeats, the worker's own:
 *   compact, bounded histograms) for the executors its assignment gives it,
 *   whose ExecutorMetricsRecorders count synthetic traffic (wide latency
 *   spreads, so the histograms are as full as a busy worker's);
 * - the assignments are watched once per simulator process with the
 *   supervisor's AssignmentWatcher (a real supervisor watches them itself: one
 *   read per supervisor per changed assignment, which docs/operations.md
 *   counts), and workers start and stop as they change.
 *
 * A "killed" worker stops beating and writing and closes its session, as a
 * worker whose process was killed; the parent measures how long nimbus takes
 * to move it. No worker process, no ZeroMQ: what is measured is nimbus and
 * ZooKeeper.
 */
import type { CpuInfo } from 'node:os';
import type { Assignment } from '../../common/assignment.js';
import { connectZooKeeper, type ZooKeeperClusterState, type ZooKeeperOptions } from '../../common/cluster-state/zookeeper-store.js';
import { silentLogger } from '../../common/logger.js';
import { mapConcurrent } from '../../common/map-concurrent.js';
import { AssignmentWatcher } from '../../supervisor/assignment-watcher.js';
import { nimbusBeatsSink } from '../../supervisor/nimbus-beats-sink.js';
import { NodeCollector, type NodeSources } from '../../supervisor/node-collector.js';
import { SupervisorRegistration } from '../../supervisor/registration.js';
import { WorkerBeatReporter } from '../../supervisor/worker-beat-reporter.js';
import { ExecutorMetricsRecorder } from '../../worker/executor/executor-metrics.js';
import { WorkerHeartbeats } from '../../worker/worker-heartbeat.js';

export interface SimStart {
  type: 'start';
  zk: ZooKeeperOptions;
  nimbus: { host: string; port: number };
  supervisors: string[];
  ports: number[];
  beatMs: number;
  /** topology.stats.report.secs of the topologies submitted, in ms. */
  metricsMs: number;
  supervisorBeatMs: number;
  collectorMs: number;
  /** Fake pids of this process's workers start here (distinct across simulators). */
  pidBase: number;
}

export type SimRequest = SimStart | { type: 'kill'; topologyId: string } | { type: 'stats' } | { type: 'stop' };

export interface SimStats {
  type: 'stats';
  supervisors: number;
  workers: number;
  reports: { sent: number; failed: number; skipped: number };
  supervisorWrites: number;
  supervisorUnchanged: number;
  recordWrites: number;
  recordFailures: number;
}

export type SimReply = { type: 'ready' } | SimStats | { type: 'killed'; topologyId: string; supervisorId: string; port: number; at: number } | { type: 'stopped' } | { type: 'error'; message: string };

const log = silentLogger();
const reply = (m: SimReply): void => void process.send?.(m);

/** A seeded stream, so every run draws the same traffic. */
let seed = 12345;
function rnd(): number {
  seed = (seed * 48271) % 2147483647;
  return seed / 2147483647;
}

/** A latency (ms) from a wide, skewed spread with rare outliers: a busy executor's histogram fills many buckets. */
function latencyMs(scale: number): number {
  const u = rnd();
  return scale * 10 ** (4 * u ** 4 - 0.5);
}

class SimWorker {
  alive = true;
  beatAt = Date.now();
  private readonly recorders: ExecutorMetricsRecorder[];
  private heartbeats: WorkerHeartbeats | null = null;
  private session: ZooKeeperClusterState | null = null;
  readonly tasks: string;

  constructor(
    readonly topologyId: string,
    readonly supervisorId: string,
    readonly port: number,
    readonly pid: number,
    readonly epoch: number,
    executors: readonly { component: string; task: number }[],
  ) {
    this.recorders = executors.map((e) => new ExecutorMetricsRecorder(e.component, e.task));
    this.tasks = executors.map((e) => e.task).join(',');
  }

  async start(zk: ZooKeeperOptions, beatMs: number, metricsMs: number): Promise<void> {
    this.session = await connectZooKeeper(zk, log);
    this.heartbeats = new WorkerHeartbeats({
      store: this.session,
      launch: { topologyId: this.topologyId, supervisorId: this.supervisorId, host: '127.0.0.1', port: this.port, modulePath: '', state: 'zookeeper', clusterConfig: {}, gpu: null },
      log,
      epoch: () => this.epoch,
      dropped: () => 0,
      executors: this.recorders.map((metrics) => ({ metrics, queueDepth: 0, extraMetrics: () => undefined })),
      load: null,
    });
    this.traffic();
    await this.heartbeats.start(beatMs, metricsMs);
  }

  /** One second of synthetic traffic: counters, and a few timed executes and completes per executor. */
  traffic(): void {
    for (const m of this.recorders) {
      const n = 500 + Math.floor(rnd() * 500);
      if (m.component === 'sentences') {
        m.emitted += n;
        m.transferred += n;
        m.acked += n;
        for (let i = 0; i < 8; i++) m.recordComplete(latencyMs(2));
      } else {
        m.executed += n;
        m.emitted += n;
        m.transferred += n;
        m.acked += n;
        for (let i = 0; i < 8; i++) m.countExecute(latencyMs(0.01));
      }
    }
  }

  /** The local beat a supervisor would read from this worker's file. */
  localBeat(): { pid: number; time: number; epoch: number } {
    return { pid: this.pid, time: this.beatAt, epoch: this.epoch };
  }

  get recordWrites(): { ok: number; failed: number } {
    return this.heartbeats?.writes ?? { ok: 0, failed: 0 };
  }

  /** As a killed process: no more beats, records or session. */
  async stop(): Promise<void> {
    this.alive = false;
    this.heartbeats?.stop();
    await this.session?.close().catch(() => undefined);
  }
}

class SimSupervisor {
  readonly workers = new Map<number, SimWorker>();
  readonly collector: NodeCollector;
  registration!: SupervisorRegistration;
  reporter!: WorkerBeatReporter;
  session!: ZooKeeperClusterState;
  private busy = 0;

  constructor(
    readonly id: string,
    readonly ports: number[],
  ) {
    this.collector = new NodeCollector([], this.sources());
  }

  /** A node's figures that move as a busy node's do. */
  private sources(): NodeSources {
    const cores = 8;
    return {
      cpus: () => {
        this.busy += 4000 * rnd();
        return Array.from({ length: cores }, () => ({ times: { user: this.busy / cores, nice: 0, sys: 0, irq: 0, idle: (Date.now() / 10) } }) as Pick<CpuInfo, 'times'>);
      },
      memory: () => ({ totalBytes: 32 * 2 ** 30, availableBytes: (16 + 8 * rnd()) * 2 ** 30 }),
      load1: () => 2 + 2 * rnd(),
      gpuUsage: () => Promise.resolve({ ok: false, why: 'no GPU' }),
      processes: (pids) => Promise.resolve(new Map(pids.map((p) => [p, { cpu: rnd(), rssBytes: (120 + 40 * rnd()) * 2 ** 20 }]))),
      now: () => Date.now(),
    };
  }

  async start(o: SimStart): Promise<void> {
    this.session = await connectZooKeeper(o.zk, log);
    this.registration = new SupervisorRegistration(
      this.session,
      { id: this.id, host: '127.0.0.1', ports: this.ports, gpus: [], cpuCores: 8, memoryMB: 32768, logServer: null },
      o.supervisorBeatMs,
      log,
      () => this.collector.latest(),
      () => [],
    );
    await this.registration.start();
    this.reporter = new WorkerBeatReporter({
      supervisorId: this.id,
      periodMs: o.beatMs,
      running: () => [...this.workers.values()].filter((w) => w.alive).map((w) => ({ topologyId: w.topologyId, port: w.port, pid: w.pid })),
      localBeat: (port) => this.workers.get(port)?.localBeat() ?? null,
      send: nimbusBeatsSink({ state: this.session, nimbusHost: o.nimbus.host, nimbusPort: o.nimbus.port, fetchImpl: fetch, timeoutMs: Math.max(1000, 2 * o.beatMs) }),
      log,
    });
    this.reporter.start();
  }

  collect(): void {
    const workers = [...this.workers.values()].filter((w) => w.alive).map((w) => ({ port: w.port, topologyId: w.topologyId, pid: w.pid }));
    void this.collector.collect(workers);
  }

  async stop(): Promise<void> {
    this.reporter?.stop();
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    await this.registration?.stop();
    await this.session?.close().catch(() => undefined);
  }
}

class Simulator {
  private readonly supervisors = new Map<string, SimSupervisor>();
  private watcher: AssignmentWatcher | null = null;
  private shared: ZooKeeperClusterState | null = null;
  private nextPid: number;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly retired = { ok: 0, failed: 0 };

  constructor(private readonly o: SimStart) {
    this.nextPid = o.pidBase;
  }

  async start(): Promise<void> {
    await mapConcurrent(this.o.supervisors, 16, async (id) => {
      const s = new SimSupervisor(id, this.o.ports);
      this.supervisors.set(id, s);
      s.collect();
      await s.start(this.o);
    });
    this.shared = await connectZooKeeper(this.o.zk, log);
    this.watcher = new AssignmentWatcher(this.shared, () => this.requestSync(), log);
    await this.watcher.start();
    this.requestSync();
    // Every beat period: living workers beat and count a second of traffic.
    this.timers.push(
      setInterval(() => {
        const now = Date.now();
        for (const s of this.supervisors.values()) {
          for (const w of s.workers.values()) {
            if (!w.alive) continue;
            w.beatAt = now;
            w.traffic();
          }
        }
      }, this.o.beatMs),
    );
    // Each supervisor collects on its own phase, as supervisors started at different moments do.
    if (this.o.collectorMs > 0) {
      for (const s of this.supervisors.values()) {
        const phase = setTimeout(() => this.timers.push(setInterval(() => s.collect(), this.o.collectorMs)), rnd() * this.o.collectorMs);
        this.timers.push(phase);
      }
    }
  }

  private requestSync(): void {
    this.syncAgain = true;
    if (this.syncing) return;
    this.syncing = (async () => {
      while (this.syncAgain) {
        this.syncAgain = false;
        await this.sync().catch((err: unknown) => reply({ type: 'error', message: `sync: ${String(err)}` }));
      }
      this.syncing = null;
    })();
  }

  /** Starts the workers the assignments give this process's supervisors, stops those they no longer give. */
  private async sync(): Promise<void> {
    const desired = new Map<string, { a: Assignment; w: Assignment['workers'][number] }>();
    for (const a of this.watcher!.assignments.values()) {
      for (const w of a.workers) if (this.supervisors.has(w.supervisorId)) desired.set(`${w.supervisorId}:${w.port}`, { a, w });
    }
    const starts: (() => Promise<void>)[] = [];
    for (const s of this.supervisors.values()) {
      for (const [port, worker] of s.workers) {
        const d = desired.get(`${s.id}:${port}`);
        const tasks = d?.w.executors.map((e) => e.task).join(',');
        if (d && d.a.topologyId === worker.topologyId && tasks === worker.tasks) continue;
        s.workers.delete(port);
        const done = worker.recordWrites;
        this.retired.ok += done.ok;
        this.retired.failed += done.failed;
        await worker.stop();
      }
      for (const port of s.ports) {
        const d = desired.get(`${s.id}:${port}`);
        if (!d || s.workers.has(port)) continue;
        const w = new SimWorker(d.a.topologyId, s.id, port, this.nextPid++, d.a.epoch, d.w.executors);
        s.workers.set(port, w);
        starts.push(() => w.start(this.o.zk, this.o.beatMs, this.o.metricsMs));
      }
    }
    await mapConcurrent(starts, 32, (f) => f().catch((err: unknown) => reply({ type: 'error', message: `worker start: ${String(err)}` })));
  }

  kill(topologyId: string): void {
    for (const s of this.supervisors.values()) {
      for (const w of s.workers.values()) {
        if (w.topologyId !== topologyId || !w.alive) continue;
        const at = Date.now();
        void w.stop();
        reply({ type: 'killed', topologyId, supervisorId: s.id, port: w.port, at });
        return;
      }
    }
    reply({ type: 'error', message: `no living worker of ${topologyId} here` });
  }

  stats(): SimStats {
    const reports = { sent: 0, failed: 0, skipped: 0 };
    let workers = 0;
    let supervisorWrites = 0;
    let supervisorUnchanged = 0;
    let recordWrites = this.retired.ok;
    let recordFailures = this.retired.failed;
    for (const s of this.supervisors.values()) {
      reports.sent += s.reporter?.counts.sent ?? 0;
      reports.failed += s.reporter?.counts.failed ?? 0;
      reports.skipped += s.reporter?.counts.skipped ?? 0;
      supervisorWrites += s.registration?.counts.writes ?? 0;
      supervisorUnchanged += s.registration?.counts.unchanged ?? 0;
      for (const w of s.workers.values()) {
        if (w.alive) workers++;
        recordWrites += w.recordWrites.ok;
        recordFailures += w.recordWrites.failed;
      }
    }
    return { type: 'stats', supervisors: this.supervisors.size, workers, reports, supervisorWrites, supervisorUnchanged, recordWrites, recordFailures };
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.watcher?.stop();
    await mapConcurrent([...this.supervisors.values()], 32, (s) => s.stop());
    await this.shared?.close().catch(() => undefined);
  }
}

let sim: Simulator | null = null;

process.on('message', (m: SimRequest) => {
  void (async () => {
    try {
      if (m.type === 'start') {
        sim = new Simulator(m);
        await sim.start();
        reply({ type: 'ready' });
      } else if (m.type === 'kill') sim?.kill(m.topologyId);
      else if (m.type === 'stats') reply(sim ? sim.stats() : { type: 'error', message: 'not started' });
      else if (m.type === 'stop') {
        await sim?.stop();
        reply({ type: 'stopped' });
        process.disconnect?.();
        setTimeout(() => process.exit(0), 100).unref();
      }
    } catch (err) {
      reply({ type: 'error', message: String((err as Error)?.stack ?? err) });
    }
  })();
});
process.on('disconnect', () => process.exit(0));
