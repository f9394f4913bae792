/**
 * The master daemon over a ClusterState: it wires its parts (the reconcile
 * loop in reconciler.ts, the operator's verbs in topology-admin.ts, the
 * liveness tracker and the metrics sampler) and offers the write side —
 * submit, kill, activate, deactivate, rebalance, set-log-level — plus what
 * supervisors fetch (bundles, CURVE keys) and send (their workers' liveness).
 * Nimbus holds nothing that matters beyond the store and its blob dir — on
 * start it reads everything back, so a restart loses nothing and running
 * workers are untouched.
 *
 * Two readers: the reconcile loop, the sampler and the admin verbs read
 * through a watched cache (what did not change costs no request;
 * docs/operations.md) — they write through the same session, so they always
 * read their own writes; the read model reads the store itself, so what an
 * operator is shown is never a moment behind what another client just wrote.
 */
import { join } from 'node:path';
import type { Assignment } from '../common/assignment.js';
import type { ClusterState } from '../common/cluster-state.js';
import { createJson } from '../common/cluster-state/json-node.js';
import { ensureNode } from '../common/cluster-state/state-ops.js';
import { WatchedNodeCache } from '../common/cluster-state/watched-node-cache.js';
import type { WorkerBeatsReport } from '../common/worker-beats-report.js';
import type { Config, RawConfig } from '../common/config/index.js';
import type { Logger } from '../common/logger.js';
import type { CurveKeys } from '../common/security/curve-keys.js';
import type { StormBase, TopologyCode } from '../common/storm-base.js';
import { ZkPaths } from '../common/zk-paths.js';
import { BlobStore } from './blob-store.js';
import { UploadsInFlight } from './bundle-upload.js';
import { ClusterReader } from './cluster-reader.js';
import { CurveKeyStore } from './curve-key-store.js';
import { BadRequestError, TopologyExistsError } from './errors.js';
import { HeartbeatSampler } from './heartbeat-sampler.js';
import { HeartbeatTracker } from './heartbeat-tracker.js';
import { MemoryWatch } from './memory-watch.js';
import { nimbusSettings, type NimbusSettings } from './nimbus-config.js';
import { NimbusReadModel } from './nimbus-read-model.js';
import { nimbusHealth } from './nimbus-health.js';
import { NimbusRegistration } from './nimbus-registration.js';
import type { ClusterReadModel, TopologyControl } from './read-model.js';
import { Reconciler } from './reconciler.js';
import { checkStormRecordSize, checkTopologyName, mergeTopologyConfig, parseTopologyDef } from './submit-validation.js';
import { validateStateBounds, validateWindowBounds } from '../topology-sdk/validate-bounds.js';
import { TopologyAdmin, type RebalanceOptions } from './topology-admin.js';

export interface NimbusOptions {
  state: ClusterState;
  /** Validated cluster config (buildConfig without user keys). */
  config: Config;
  log: Logger;
  /** Where uploaded bundles live; null: none (local mode, code by path). Default `<hstorm.local.dir>/blobs`. */
  blobDir?: string | null;
  /** Written to the ephemeral ZkPaths.nimbus node so supervisors find the HTTP API; omitted in local mode. */
  advertise?: { host: string; port: number };
}

export interface SubmitOptions {
  /** Submit deactivated (Storm's initial status INACTIVE): placed and started, spouts idle until `activate`. */
  inactive?: boolean;
}

export interface SubmitResult {
  id: string;
  name: string;
  assignment: Assignment | null;
}

export class Nimbus implements TopologyControl {
  readonly config: Config;
  readonly settings: NimbusSettings;
  /** The views (cluster, supervisors, topologies, queue, time series, snapshots) for the HTTP API, the UI room and tests. */
  readonly readModel: ClusterReadModel;
  private readonly blobs: BlobStore | null;
  private readonly curve: CurveKeyStore | null;
  private readonly state: ClusterState;
  private readonly log: Logger;
  /** Through the watched cache: the reconcile loop's, the sampler's and the admin verbs' (they write through the same session, so they read their own writes). */
  private readonly reader: ClusterReader;
  private readonly admin: TopologyAdmin;
  private readonly reconciler: Reconciler;
  private readonly registration: NimbusRegistration | null;
  private readonly uploads = new UploadsInFlight();
  /** γ, δ and latencies (and what the UI keeps), from the metrics records that changed, on each monitor tick. */
  private readonly sampler: HeartbeatSampler;
  private readonly tracker: HeartbeatTracker;
  private readonly cache: WatchedNodeCache;
  /** The process's memory and the heap after the latest major collection (health, /metrics, the scale soak). */
  private readonly memory = new MemoryWatch();
  private stopped = true;
  private counter = 0;

  constructor(options: NimbusOptions) {
    const startedAt = Date.now();
    this.state = options.state;
    this.config = options.config;
    this.settings = nimbusSettings(options.config);
    this.log = options.log;
    const blobDir = options.blobDir === undefined ? join(this.settings.localDir, 'blobs') : options.blobDir;
    this.blobs = blobDir === null ? null : new BlobStore(blobDir);
    this.curve = this.settings.curve ? new CurveKeyStore(blobDir === null ? null : join(this.settings.localDir, 'curve-keys')) : null;
    const freshReader = ClusterReader.over(this.state, this.log);
    this.cache = new WatchedNodeCache(this.state);
    this.reader = freshReader.through(this.cache);
    const tracker = new HeartbeatTracker({
      taskTimeoutMs: this.settings.taskTimeoutMs,
      startTimeoutMs: this.settings.workerStartTimeoutMs,
    });
    this.tracker = tracker;
    this.admin = new TopologyAdmin({
      state: this.state,
      reader: this.reader,
      blobs: this.blobs,
      log: this.log,
      exclusive: (fn) => this.reconciler.exclusive(fn),
      round: (forced) => this.reconciler.round({ forced }),
      requestRound: () => this.reconciler.requestRound(),
    });
    this.registration = options.advertise ? new NimbusRegistration(this.state, options.advertise, this.log) : null;
    this.sampler = new HeartbeatSampler(this.reader, this.cache, tracker, this.log);
    this.reconciler = new Reconciler({
      state: this.state,
      reader: this.reader,
      tracker,
      admin: this.admin,
      settings: this.settings,
      log: this.log,
      onMonitorTick: () => this.sampler.tick(),
    });
    this.readModel = new NimbusReadModel({
      state: this.state,
      reader: freshReader,
      tracker,
      sampler: this.sampler,
      config: this.config,
      settings: this.settings,
      advertise: options.advertise,
      startedAt,
      health: () =>
        nimbusHealth({ monitor: this.reconciler.monitor, monitorPeriodMs: this.settings.monitorMs, sampler: this.sampler, tracker: this.tracker, cache: this.cache, memory: this.memory }),
    });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.memory.start();
    for (const root of ZkPaths.roots()) await ensureNode(this.state, root);
    await this.registration?.start();
    await this.reconciler.start();
    this.log.info({ scheduler: this.settings.scheduler, supervisors: this.reconciler.supervisorCount }, 'nimbus started');
  }

  /** Stops timers and watches; the store (and its session) belongs to the caller. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.reconciler.halt();
    this.admin.stop();
    this.registration?.stop();
    await this.reconciler.drained();
    await this.sampler.idle();
    this.cache.close();
    this.memory.stop();
  }

  /** A supervisor's report of its workers' liveness (`POST /api/v1/supervisors/:id/worker-beats`; local mode calls it directly). */
  receiveWorkerBeats(report: WorkerBeatsReport): void {
    this.tracker.report(report);
  }

  /** Counts a report refused as malformed (nimbus's health). */
  refusedWorkerBeats(): void {
    this.tracker.counts.refused++;
  }

  // ── topology lifecycle ────────────────────────────────────────────────────

  /**
   * Validates and stores a topology, then schedules it. `def` and
   * `topologyConfig` come from a client and are checked here; a bundle must
   * have been stored in the blob store first (see `storeBundle`). With
   * `inactive` the topology is scheduled and its workers start, but its
   * spouts wait for `activate` (Storm's initial status INACTIVE).
   */
  async submit(name: string, def: unknown, topologyConfig: RawConfig, code: TopologyCode, opts: SubmitOptions = {}): Promise<SubmitResult> {
    checkTopologyName(name);
    const parsed = parseTopologyDef(def);
    const config = mergeTopologyConfig(this.config, parsed.config, topologyConfig);
    validateWindowBounds(parsed, config);
    validateStateBounds(parsed, config);
    checkStormRecordSize({ def: parsed, config });
    if (code.kind === 'bundle' && !(await this.blobs?.has(code.sha256))) {
      throw new BadRequestError(`bundle ${code.sha256} was not uploaded to this nimbus`, 'code');
    }
    return this.reconciler.exclusive(async () => {
      const storms = await this.reader.storms();
      const dup = [...storms.values()].find((s) => s.name === name);
      if (dup) throw new TopologyExistsError(name, dup.status);
      const id = await this.newTopologyId(name);
      const base: StormBase = { version: 1, id, name, status: opts.inactive ? 'inactive' : 'active', launchTime: Date.now(), def: parsed, config: { ...config }, code };
      await createJson(this.state, ZkPaths.storm(id), base, { parents: true });
      this.log.info({ topology: id, workers: config['topology.workers'], code: code.kind, status: base.status }, 'topology submitted');
      await this.reconciler.round({});
      return { id, name, assignment: await this.reader.assignment(id) };
    });
  }

  /** Verifies (checksum, bounded streaming inflate) and stores an uploaded bundle; returns its key. */
  async storeBundle(gz: Uint8Array, sha256: string): Promise<string> {
    if (!this.blobs) throw new BadRequestError('this nimbus has no blob store (local mode): submit code by path', 'bundle');
    return this.blobs.put(gz, sha256, this.settings.maxBundleInflatedBytes);
  }

  /**
   * Stores a bundle and submits the topology that runs it; when the submit is
   * refused (bad config, name taken…), the bundle is deleted again unless a
   * topology or another upload in flight uses the same code.
   */
  async submitBundle(name: string, def: unknown, topologyConfig: RawConfig, gz: Uint8Array, sha256: string, opts: SubmitOptions = {}): Promise<SubmitResult> {
    this.uploads.begin(sha256);
    let submitted = false;
    try {
      await this.storeBundle(gz, sha256);
      const result = await this.submit(name, def, topologyConfig, { kind: 'bundle', sha256, size: gz.length }, opts);
      submitted = true;
      return result;
    } finally {
      if (this.uploads.end(sha256) && !submitted && this.blobs) await this.dropUnusedBundle(sha256);
    }
  }

  private async dropUnusedBundle(sha256: string): Promise<void> {
    const blobs = this.blobs;
    if (!blobs) return;
    await this.reconciler.exclusive(async () => {
      const used = [...(await this.reader.storms()).values()].some((s) => s.code.kind === 'bundle' && s.code.sha256 === sha256);
      if (!used) await blobs.delete(sha256);
    }).catch((err: unknown) => this.log.warn({ err, sha256 }, 'could not delete the bundle of a refused submit'));
  }

  /** Status `killed` now (spouts stop); assignment and the rest removed after `waitSecs` (default: the topology's message timeout). */
  kill(name: string, waitSecs?: number): Promise<StormBase> {
    return this.admin.kill(name, waitSecs);
  }

  activate(name: string): Promise<StormBase> {
    return this.admin.setActive(name, true);
  }

  setLogLevel(name: string, level: string, timeoutSecs?: number): Promise<StormBase> {
    return this.admin.setLogLevel(name, level, timeoutSecs);
  }

  deactivate(name: string): Promise<StormBase> {
    return this.admin.setActive(name, false);
  }

  /** Status `rebalancing`, optionally a new `topology.workers`, then a fresh placement and the previous status back. */
  rebalance(name: string, opts: RebalanceOptions = {}): Promise<StormBase> {
    return this.admin.rebalance(name, opts);
  }

  /** A topology by name or id; TopologyNotFoundError when neither matches. */
  findTopology(nameOrId: string): Promise<StormBase> {
    return this.admin.find(nameOrId);
  }

  /** Where the bundle of a topology (by name or id) lies in the blob dir. */
  async bundlePath(nameOrId: string): Promise<{ path: string; sha256: string }> {
    const storm = await this.admin.find(nameOrId);
    if (storm.code.kind !== 'bundle' || !this.blobs) {
      throw new BadRequestError(`topology ${storm.id} runs code from a local path, not a bundle`, 'id');
    }
    return { path: this.blobs.pathOf(storm.code.sha256), sha256: storm.code.sha256 };
  }

  /** The CURVE key pair of a topology's workers (by name or id); only with hstorm.messaging.curve. */
  async curveKeys(nameOrId: string): Promise<CurveKeys> {
    if (!this.curve) throw new BadRequestError('this nimbus runs with hstorm.messaging.curve off: workers have no CURVE keys', 'id');
    const storm = await this.admin.find(nameOrId);
    return this.curve.keysFor(storm.id);
  }

  /** Runs a reconcile round now (tests; `hstorm` never needs it). */
  reconcileNow(): Promise<void> {
    return this.reconciler.exclusive(() => this.reconciler.round({ checkHeartbeats: true }));
  }

  private async newTopologyId(name: string): Promise<string> {
    for (;;) {
      const id = `${name}-${++this.counter}-${Math.floor(Date.now() / 1000)}`;
      if (!(await this.state.exists(ZkPaths.storm(id)))) return id;
    }
  }
}
