/**
 * The node daemon: registers this node's slots and GPUs, watches the
 * assignments, and keeps exactly the workers assigned to it running — one
 * process per assigned port, restarted when it dies or stops heartbeating,
 * restarted when its executors or GPU change, stopped (SIGTERM, then SIGKILL)
 * when it is no longer assigned. A worker's health is judged from the
 * heartbeat it writes to local disk, so a ZooKeeper outage restarts nothing;
 * a supervisor restarted on the same data dir adopts the workers it finds
 * still running their assignment (cluster mode; local mode has no survivors). Works the same in cluster mode (ZooKeeper,
 * bundles from nimbus) and local mode (in-memory store served to workers over
 * IPC, code by path).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Assignment, GpuBinding, WorkerAssignment } from '../common/assignment.js';
import { isStateError, isUnreachableStateError, type ClusterState, type SessionState } from '../common/cluster-state.js';
import { readJson } from '../common/cluster-state/json-node.js';
import type { Config } from '../common/config/index.js';
import type { Logger } from '../common/logger.js';
import { stormBaseSchema } from '../common/record-schemas.js';
import { CRASH_LOOP_DEATHS, type GpuInfo, type WorkerExitReport } from '../common/resources.js';
import { ZkPaths } from '../common/zk-paths.js';
import { AssignmentWatcher } from './assignment-watcher.js';
import { CodeFetcher } from './code-fetcher.js';
import { discoverGpus, gpuDiscoveryConfig } from './gpu-discovery.js';
import { NodeCollector, osSources, type NodeSources } from './node-collector.js';
import { defaultWorkerEntry } from '../common/package-root.js';
import { SupervisorRegistration } from './registration.js';
import { WorkerBeatReporter, type RunningWorker } from './worker-beat-reporter.js';
import { nimbusBeatsSink } from './nimbus-beats-sink.js';
import type { WorkerBeatsSink } from '../common/worker-beats-report.js';
import { supervisorSettings, type SupervisorSettings } from './supervisor-config.js';
import { WorkerLauncher, type IpcServe, type LeftoverWorker, type WorkerProcess } from './worker-launcher.js';
import { fetchWithSecret } from '../common/security/authorized-fetch.js';
import type { CurveKeys } from '../common/security/curve-keys.js';
import { nimbusSecret } from '../common/security/secrets.js';
import { curveKeySource, workerClusterConfig } from './link-keys.js';
import { resolveWorkerUser } from './worker-user.js';
import { lastErrorInLog } from './worker-log-error.js';
import { startLogServer } from './log-server.js';
import { HstormError } from '../common/errors.js';
import type { FastifyInstance } from 'fastify';

export interface SupervisorOptions {
  state: ClusterState;
  /** Validated cluster config. */
  config: Config;
  log: Logger;
  /** Local mode: serve the in-memory store to each worker over IPC. Absent: workers use ZooKeeper. */
  ipc?: IpcServe;
  /** Worker entry script; default `<package root>/dist/worker/main.js`. */
  workerEntry?: string;
  /** How long a worker gets between SIGTERM and SIGKILL. Default 5000. */
  workerStopGraceMs?: number;
  /** GPUs to report instead of running discovery (tests, embedding). */
  gpus?: GpuInfo[];
  /** Extra environment for workers. */
  workerEnv?: Record<string, string>;
  fetchImpl?: typeof fetch;
  /** Where workers' CURVE keys come from when hstorm.messaging.curve is on; default nimbus's API (local mode: the in-process nimbus). */
  curveKeys?: (topologyId: string) => Promise<CurveKeys>;
  /** Where the node collector reads CPU, memory, GPU and process use (tests); default the OS, nvidia-smi and /proc. */
  nodeSources?: NodeSources;
  /** Where the workers' liveness goes every worker.heartbeat.frequency.secs; default nimbus's HTTP API (local mode: the in-process nimbus). */
  workerBeats?: WorkerBeatsSink;
}

/** What a supervisor reports about one of its workers (tests, `hstorm local`). */
export interface SupervisorWorkerState {
  port: number;
  topologyId: string;
  pid: number | null;
  alive: boolean;
  launches: number;
  gpu: GpuBinding | null;
  logFile: string;
}

interface Slot {
  port: number;
  topologyId: string;
  signature: string;
  worker: WorkerAssignment;
  proc: WorkerProcess | null;
  launches: number;
  /** Consecutive deaths soon after start: they space out restarts (the first is immediate). */
  fastFailures: number;
  nextLaunchAt: number;
  /** Deaths since the slot was assigned this topology, and the last one (reported in the supervisor's heartbeat). */
  deaths: number;
  lastExit: WorkerExitReport['lastExit'] | null;
  lastError: string | null;
}

/** A worker the assignments ask this supervisor to run on a port. */
interface Desired {
  topologyId: string;
  worker: WorkerAssignment;
  signature: string;
}

/** A worker that dies within this long of starting counts as a fast failure. */
const FAST_FAILURE_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;
/** Every this many monitor ticks the assignments are re-read in full, in case a watch was lost. */
const FULL_REFRESH_TICKS = 10;

/**
 * What a worker process was started for: its GPU, its tasks, and the topology's task layout. A worker fixes at start
 * which component each task of the topology runs and which tasks are ackers (worker/task-table.ts), so one kept across
 * a rebalance that renumbers tasks (`-e`) or changes the acker count (`-n` with ackers per worker) would hash acks
 * over the old ackers and route to the old tasks. Any change of layout therefore restarts it, as Storm restarts every
 * worker on a rebalance; a change that keeps the layout (executors placed, moved, left unassigned) does not.
 */
function signatureOf(w: WorkerAssignment, a: Assignment): string {
  const tasks = w.executors.map((e) => e.task).sort((x, y) => x - y);
  return `${w.gpu?.gpuId ?? 'cpu'}|${tasks.join(',')}|${layoutOf(a)}`;
}

/** A short fingerprint of every task → component pair of the topology, placed or not. */
function layoutOf(a: Assignment): string {
  const pairs = [...a.workers.flatMap((w) => w.executors), ...a.unassigned].map((e) => `${e.task}:${e.component}`).sort();
  return createHash('sha256').update(pairs.join(',')).digest('hex').slice(0, 16);
}

export class Supervisor {
  readonly settings: SupervisorSettings;
  private readonly state: ClusterState;
  private readonly log: Logger;
  private readonly launcher: WorkerLauncher;
  private readonly fetcher: CodeFetcher;
  private readonly curveKeys: ((topologyId: string) => Promise<CurveKeys>) | null;
  private readonly watcher: AssignmentWatcher;
  private registration: SupervisorRegistration | null = null;
  private readonly beatReporter: WorkerBeatReporter;
  private readonly slots = new Map<number, Slot>();
  private readonly graceMs: number;
  private monitorTimer: NodeJS.Timeout | null = null;
  private collector: NodeCollector | null = null;
  private collectTimer: NodeJS.Timeout | null = null;
  private collecting: Promise<void> | null = null;
  private ticks = 0;
  private unsubscribeSession: (() => void) | null = null;
  private stopped = true;
  private syncRequested = false;
  /** Set until leftovers are adopted: a sync before that would start a second worker on an adopted port. */
  private syncHeld = true;
  private syncLoop: Promise<void> | null = null;
  private logServer: FastifyInstance | null = null;
  /** Where the worker log server answers, as advertised (null: none). */
  logServerAddress: { host: string; port: number } | null = null;
  gpus: GpuInfo[] = [];

  constructor(private readonly options: SupervisorOptions) {
    this.settings = supervisorSettings(options.config);
    this.state = options.state;
    this.log = options.log.child({ supervisor: this.settings.id });
    this.graceMs = options.workerStopGraceMs ?? 5000;
    const authorizedFetch = fetchWithSecret(options.fetchImpl ?? fetch, nimbusSecret(options.config));
    const entry = options.workerEntry ?? defaultWorkerEntry();
    const pidDir = join(this.settings.localDir, 'workers', this.settings.id);
    // A worker running as supervisor.worker.user must search its heartbeat's directory and its topology's code.
    const runAs = resolveWorkerUser(options.config, { execPath: process.execPath, entry, dirs: [pidDir, join(this.settings.localDir, 'stormdist')] });
    this.launcher = new WorkerLauncher({
      log: this.log,
      entry,
      childopts: this.settings.childopts,
      logDir: join(this.settings.localDir, 'logs'),
      pidDir,
      clusterConfig: workerClusterConfig(options.config),
      runAs,
      ...(options.ipc && { ipc: options.ipc }),
      ...(options.workerEnv && { env: options.workerEnv }),
    });
    this.fetcher = new CodeFetcher({
      state: this.state,
      localDir: this.settings.localDir,
      nimbusHost: this.settings.nimbusHost,
      nimbusPort: this.settings.nimbusPort,
      log: this.log,
      maxInflatedBytes: this.settings.maxBundleInflatedBytes,
      fetchImpl: authorizedFetch,
      workerUser: runAs,
    });
    this.curveKeys = curveKeySource(options, this.settings, this.state, authorizedFetch, this.log);
    this.watcher = new AssignmentWatcher(this.state, () => this.requestSync(), this.log);
    this.beatReporter = new WorkerBeatReporter({
      supervisorId: this.settings.id,
      periodMs: this.settings.workerHeartbeatMs,
      running: () => this.runningWorkers(),
      localBeat: (port) => this.launcher.localHeartbeatOf(port),
      send:
        options.workerBeats ??
        nimbusBeatsSink({
          state: this.state,
          nimbusHost: this.settings.nimbusHost,
          nimbusPort: this.settings.nimbusPort,
          fetchImpl: authorizedFetch,
          timeoutMs: Math.max(1000, 2 * this.settings.workerHeartbeatMs),
        }),
      log: this.log,
    });
  }

  get id(): string {
    return this.settings.id;
  }

  get host(): string {
    return this.settings.host;
  }

  get ports(): number[] {
    return this.settings.ports;
  }

  async start(): Promise<void> {
    this.stopped = false;
    // Local mode's workers die with the process that served them their store: nothing to adopt there.
    const leftovers = this.options.ipc ? (await this.launcher.reapLeftovers(), []) : await this.launcher.adoptLeftovers(this.ports);
    this.gpus = this.options.gpus ?? (await this.discover());
    for (const root of ZkPaths.roots()) {
      await this.state.create(root, new Uint8Array(), { parents: true }).catch((err: unknown) => {
        if (!isStateError(err, 'NODE_EXISTS')) throw err;
      });
    }
    await this.startLogServer();
    const collector = this.settings.collectorMs > 0 ? new NodeCollector(this.gpus, this.options.nodeSources ?? osSources) : null;
    this.collector = collector;
    this.registration = new SupervisorRegistration(
      this.state,
      {
        id: this.id,
        host: this.host,
        ports: this.ports,
        gpus: this.gpus,
        cpuCores: this.settings.cpuCores,
        memoryMB: this.settings.memoryMB,
        logServer: this.logServerAddress,
      },
      this.settings.heartbeatMs,
      this.log,
      () => collector?.latest() ?? null,
      () => this.workerExitReports(),
    );
    await this.registration.start();
    if (collector) {
      this.collectNode();
      this.collectTimer = setInterval(() => this.collectNode(), this.settings.collectorMs);
    }
    this.unsubscribeSession = this.state.onSessionState((s) => this.onSession(s));
    // Registered, so ZooKeeper was there a moment ago: if it goes away before the first read of the assignments (a
    // restart, a lost connection), that is no reason to end the daemon — the reconnect handler and the monitor's full
    // refresh read them again (a soak run saw a supervisor exit on CONNECTION_LOSS here, right after registering).
    await this.watcher.start().catch((err: unknown) => {
      if (!isUnreachableStateError(err)) throw err;
      this.log.warn({ err }, 'could not read the assignments yet; reading them when ZooKeeper answers');
    });
    await this.adopt(leftovers);
    this.syncHeld = false;
    this.requestSync();
    this.monitorTimer = setInterval(() => this.monitorTick(), this.settings.monitorMs);
    this.beatReporter.start();
  }

  /** Stops every worker (they write a last heartbeat) and leaves the cluster. The store belongs to the caller. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.monitorTimer) clearInterval(this.monitorTimer);
    this.monitorTimer = null;
    this.beatReporter.stop();
    if (this.collectTimer) clearInterval(this.collectTimer);
    this.collectTimer = null;
    await this.collecting;
    this.unsubscribeSession?.();
    this.watcher.stop();
    await this.syncLoop;
    await Promise.all([...this.slots.values()].map((s) => this.stopWorker(s, 'supervisor shutting down')));
    this.slots.clear();
    await this.registration?.stop();
    await this.logServer?.close().catch((err: unknown) => this.log.warn({ err }, 'could not close the worker log server'));
    this.logServer = null;
    this.log.info('supervisor stopped');
  }

  workers(): SupervisorWorkerState[] {
    return [...this.slots.values()].map((s) => ({
      port: s.port,
      topologyId: s.topologyId,
      pid: s.proc?.pid ?? null,
      alive: s.proc?.alive ?? false,
      launches: s.launches,
      gpu: s.worker.gpu,
      logFile: this.launcher.logFileOf(s.topologyId, s.port),
    }));
  }

  /** The worker log server `hstorm logs` reads (supervisor.logviewer.port), behind nimbus's secret when one is set. */
  private async startLogServer(): Promise<void> {
    if (this.settings.logviewerPort === null) return;
    const start = () =>
      startLogServer({
        logDir: this.launcher.logDir,
        secret: nimbusSecret(this.options.config),
        log: this.log.child({ component: 'log-server' }),
        host: this.settings.logviewerBindHost,
        port: this.settings.logviewerPort!,
      });
    let { app, port } = await start();
    // Any free port (0) may be one of our own slot ports that no worker has bound yet (slot ports in the ephemeral
    // range): the worker given that slot would then fail to bind, over and over. Ask again for another.
    for (let attempt = 0; attempt < 20 && this.settings.ports.includes(port); attempt++) {
      this.log.info({ port }, 'the free port given to the log server is a slot port; asking for another');
      const next = await start();
      await app.close();
      ({ app, port } = next);
    }
    if (this.settings.ports.includes(port)) throw new HstormError('HSTORM_ERR_SUPERVISOR_LOG_SERVER', `the worker log server got slot port ${port} 20 times in a row; set supervisor.logviewer.port to a fixed port`);
    this.logServer = app;
    // Advertised at the address peers reach this node at, whatever interface it binds.
    this.logServerAddress = { host: this.host, port };
  }

  private async discover(): Promise<GpuInfo[]> {
    try {
      const found = await discoverGpus(gpuDiscoveryConfig(this.options.config));
      for (const note of found.notes) this.log.info({ note }, 'GPU discovery');
      return found.gpus;
    } catch (err) {
      this.log.warn({ err }, 'GPU discovery failed; offering CPU slots only');
      return [];
    }
  }

  // ── reconcile ─────────────────────────────────────────────────────────────

  /**
   * Takes over the workers a previous supervisor left running when they still
   * run what is assigned to their port (Storm does the same): the first sync
   * then finds them in place and starts nothing. Any other leftover is stopped.
   */
  private async adopt(leftovers: readonly LeftoverWorker[]): Promise<void> {
    const stopping: Promise<unknown>[] = [];
    for (const l of leftovers) {
      const assignment = this.watcher.assignments.get(l.topologyId);
      const assigned = assignment?.workers.find((w) => w.supervisorId === this.id && w.port === l.port);
      if (!assignment || !assigned || signatureOf(assigned, assignment) !== l.signature || this.slots.has(l.port)) {
        const now = assignment && assigned ? signatureOf(assigned, assignment) : null;
        this.log.info({ topology: l.topologyId, port: l.port, pid: l.proc.pid, runs: l.signature, assigned: now }, 'stopping a worker left by a previous supervisor: it no longer runs its assignment');
        stopping.push(l.proc.stop(this.graceMs));
        continue;
      }
      const slot: Slot = { port: l.port, topologyId: l.topologyId, signature: l.signature, worker: assigned, proc: l.proc, launches: 1, fastFailures: 0, nextLaunchAt: 0, deaths: 0, lastExit: null, lastError: null };
      this.slots.set(l.port, slot);
      void l.proc.exited.then((exit) => this.onWorkerExit(slot, l.proc, exit));
      this.log.info({ topology: l.topologyId, port: l.port, pid: l.proc.pid }, 'adopted a worker left running by a previous supervisor');
    }
    await Promise.all(stopping);
  }

  private requestSync(): void {
    if (this.stopped) return;
    this.syncRequested = true;
    if (this.syncLoop || this.syncHeld) return;
    this.syncLoop = (async () => {
      while (this.syncRequested && !this.stopped) {
        this.syncRequested = false;
        await this.sync().catch((err: unknown) => this.log.warn({ err }, 'supervisor sync failed; retrying on the next event or tick'));
      }
      this.syncLoop = null;
    })();
  }

  /** Makes the running workers match the assignments. */
  private async sync(): Promise<void> {
    const desired = new Map<number, Desired>();
    for (const a of this.watcher.assignments.values()) {
      for (const w of a.workers) {
        if (w.supervisorId === this.id && this.ports.includes(w.port)) desired.set(w.port, { topologyId: a.topologyId, worker: w, signature: signatureOf(w, a) });
      }
    }
    const stopping = new Map<number, Promise<void>>();
    for (const [port, slot] of this.slots) {
      const d = desired.get(port);
      if (d && d.topologyId === slot.topologyId && d.signature === slot.signature) continue;
      this.slots.delete(port);
      stopping.set(port, this.stopWorker(slot, d ? 'its executors, its GPU or the topology\'s task layout changed' : 'no longer assigned here'));
    }
    // Failover: start workers on free ports at once; only ports being vacated wait for their old worker to exit.
    await this.launchDesired(desired, (port) => !stopping.has(port));
    await Promise.all(stopping.values());
    await this.launchDesired(desired, (port) => stopping.has(port));
    await this.fetcher.prune(new Set([...desired.values()].map((d) => d.topologyId)));
  }

  private async launchDesired(desired: Map<number, Desired>, which: (port: number) => boolean): Promise<void> {
    const now = Date.now();
    for (const [port, d] of desired) {
      if (!which(port)) continue;
      let slot = this.slots.get(port);
      if (!slot) {
        slot = {
          port,
          topologyId: d.topologyId,
          signature: d.signature,
          worker: d.worker,
          proc: null,
          launches: 0,
          fastFailures: 0,
          nextLaunchAt: 0,
          deaths: 0,
          lastExit: null,
          lastError: null,
        };
        this.slots.set(port, slot);
      }
      slot.worker = d.worker;
      if (slot.proc?.alive || now < slot.nextLaunchAt || this.stopped) continue;
      await this.launch(slot);
    }
  }

  private async launch(slot: Slot): Promise<void> {
    let modulePath: string;
    let curve: CurveKeys | null;
    try {
      const { value: storm } = await readJson(this.state, ZkPaths.storm(slot.topologyId), stormBaseSchema);
      modulePath = await this.fetcher.modulePathFor(storm);
      curve = this.curveKeys ? await this.curveKeys(slot.topologyId) : null;
    } catch (err) {
      // The topology may be on its way out, or nimbus briefly unreachable: try again on the next tick.
      slot.nextLaunchAt = Date.now() + this.settings.monitorMs;
      this.log.warn({ err, topology: slot.topologyId, port: slot.port }, 'cannot get the topology code (or its CURVE keys) yet');
      return;
    }
    if (this.stopped || this.slots.get(slot.port) !== slot) return;
    const proc = this.launcher.launch({
      topologyId: slot.topologyId,
      supervisorId: this.id,
      host: this.host,
      port: slot.port,
      modulePath,
      gpu: slot.worker.gpu,
      curve,
      signature: slot.signature,
    });
    slot.proc = proc;
    slot.launches++;
    void proc.exited.then((exit) => this.onWorkerExit(slot, proc, exit));
  }

  private onWorkerExit(slot: Slot, proc: WorkerProcess, exit: { code: number | null; signal: string | null }): void {
    if (slot.proc !== proc || this.stopped || this.slots.get(slot.port) !== slot) return;
    slot.proc = null;
    const now = Date.now();
    slot.fastFailures = now - proc.startedAt < FAST_FAILURE_MS ? slot.fastFailures + 1 : 0;
    const delay = slot.fastFailures <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, 500 * 2 ** (slot.fastFailures - 2));
    slot.nextLaunchAt = now + delay;
    slot.deaths++;
    slot.lastExit = { code: exit.code, signal: exit.signal, time: now };
    this.log.warn({ topology: slot.topologyId, port: slot.port, ...exit, restartInMs: delay, logFile: proc.logFile }, 'worker died; restarting');
    // Why it died, from its log, reported with the next supervisor beat (sent at once: nimbus should not wait a period to learn of a crash loop).
    void lastErrorInLog(proc.logFile)
      .then((e) => {
        if (this.slots.get(slot.port) !== slot) return;
        slot.lastError = e;
        return this.registration?.beat();
      })
      .catch((err: unknown) => this.log.debug({ err }, 'could not report the worker exit'));
    if (delay === 0) this.requestSync();
    else setTimeout(() => this.requestSync(), delay).unref();
  }

  /** The worker processes running now, for the liveness report. */
  private runningWorkers(): RunningWorker[] {
    const out: RunningWorker[] = [];
    for (const s of this.slots.values()) if (s.proc?.alive && s.proc.pid > 0) out.push({ topologyId: s.topologyId, port: s.port, pid: s.proc.pid });
    return out;
  }

  /** Slots whose worker died, for the supervisor heartbeat; a worker up past the fast-failure span no longer counts as crash-looping. */
  private workerExitReports(): WorkerExitReport[] {
    const now = Date.now();
    const out: WorkerExitReport[] = [];
    for (const s of this.slots.values()) {
      if (!s.lastExit) continue;
      const settled = s.proc?.alive === true && now - s.proc.startedAt > FAST_FAILURE_MS;
      out.push({
        topologyId: s.topologyId,
        port: s.port,
        deaths: s.deaths,
        fastDeaths: settled ? 0 : s.fastFailures,
        crashLooping: !settled && s.fastFailures >= CRASH_LOOP_DEATHS,
        lastExit: s.lastExit,
        lastError: s.lastError,
      });
    }
    return out;
  }

  private async stopWorker(slot: Slot, why: string): Promise<void> {
    const proc = slot.proc;
    slot.proc = null;
    if (!proc?.alive) return;
    this.log.info({ topology: slot.topologyId, port: slot.port, pid: proc.pid, why }, 'stopping worker');
    await proc.stop(this.graceMs);
  }

  // ── node collector ───────────────────────────────────────────────────────

  /** One collector round over the workers running now; a round still running when the next is due is not doubled. */
  private collectNode(): void {
    const collector = this.collector;
    if (!collector || this.collecting || this.stopped) return;
    const workers = [...this.slots.values()].flatMap((s) => (s.proc?.alive && s.proc.pid > 0 ? [{ port: s.port, topologyId: s.topologyId, pid: s.proc.pid }] : []));
    this.collecting = collector
      .collect(workers)
      .then(() => undefined)
      .catch((err: unknown) => this.log.warn({ err }, 'node collector round failed; the next round retries'))
      .finally(() => (this.collecting = null));
  }

  // ── monitor ───────────────────────────────────────────────────────────────

  private monitorTick(): void {
    if (this.stopped) return;
    this.ticks++;
    const refresh = this.ticks % FULL_REFRESH_TICKS === 0 ? this.watcher.refresh() : Promise.resolve();
    refresh
      .then(() => this.checkHeartbeats())
      .then(() => this.requestSync())
      .catch((err: unknown) => this.log.warn({ err }, 'supervisor monitor round failed'));
  }

  /**
   * Restarts a running worker that never heartbeat within the start timeout,
   * or whose heartbeat went stale. The heartbeat read is the one the worker
   * writes to local disk: ZooKeeper being unreachable says nothing about the
   * worker.
   */
  private async checkHeartbeats(): Promise<void> {
    const now = Date.now();
    for (const slot of this.slots.values()) {
      const proc = slot.proc;
      if (!proc?.alive) continue;
      const beat = this.launcher.localHeartbeatOf(slot.port);
      const mine = beat !== null && beat.pid === proc.pid;
      let why: string | null = null;
      if (!mine && now - proc.startedAt > this.settings.workerStartTimeoutMs) why = 'no heartbeat within supervisor.worker.start.timeout.secs';
      if (mine && now - beat.time > this.settings.workerTimeoutMs) why = 'local heartbeat older than nimbus.task.timeout.secs';
      if (why && slot.proc === proc) {
        this.log.warn({ topology: slot.topologyId, port: slot.port, pid: proc.pid, why }, 'restarting a hung worker');
        slot.proc = null;
        slot.nextLaunchAt = 0;
        const exit = await proc.stop(this.graceMs);
        // A restart counts in the supervisor's report as a death does: describe and the UI show every worker the
        // supervisor replaced, and why (a worker that could not write its heartbeat was replaced unseen every 30 s).
        if (this.slots.get(slot.port) !== slot) continue;
        slot.deaths++;
        slot.lastExit = { code: exit.code, signal: exit.signal, time: Date.now() };
        slot.lastError = `restarted by its supervisor: ${why}`;
        this.registration?.beat().catch((err: unknown) => this.log.debug({ err }, 'could not report the worker restart'));
      }
    }
  }

  private onSession(s: SessionState): void {
    if (this.stopped) return;
    if (s === 'expired') {
      // Watches died with the session: arm fresh ones once reconnected.
      this.watcher.disarm();
      this.log.warn('store session expired');
    } else if (s === 'connected') {
      this.registration?.beat().catch((err: unknown) => this.log.warn({ err }, 'could not re-register after reconnecting'));
      this.watcher
        .refresh()
        .then(() => this.requestSync())
        .catch((err: unknown) => this.log.warn({ err }, 'could not re-read assignments after reconnecting'));
    }
  }
}
