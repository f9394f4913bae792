/**
 * LocalCluster (DESIGN §9): a whole cluster in one process for `hstorm local`
 * and tests — an in-memory cluster-state store, a Nimbus (no HTTP) and one or
 * more Supervisors launching real worker child processes, which reach the
 * store over IPC. It runs the same scheduling and launching code as cluster
 * mode; only the store and the way code is shipped (a path, not a bundle)
 * differ. Supervisor data (worker logs, pid records) lives in a temp dir
 * removed on shutdown; `keepLogsIn` copies the worker logs out first.
 *
 * @example
 * const cluster = await LocalCluster.start();
 * const { topologyId } = await cluster.submitTopology('wc', { 'topology.workers': 2 }, 'topologies/word-count.ts');
 * console.log(await cluster.heartbeats(topologyId));
 * await cluster.killTopology('wc');
 * await cluster.close();
 */
import { chmod, cp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { isStateError } from '../common/cluster-state.js';
import { InMemoryClusterStore, type InMemorySession } from '../common/cluster-state/in-memory-store.js';
import { serveClusterStateOverIpc } from '../common/cluster-state/ipc-server.js';
import { decodeJson } from '../common/cluster-state/json-node.js';
import { buildConfig, type Config, type RawConfig } from '../common/config/index.js';
import { silentLogger, type Logger } from '../common/logger.js';
import { makeTempDir, removeTempDir } from '../common/temp-dirs.js';
import { workerHeartbeatSchema } from '../common/record-schemas.js';
import type { StormBase, WorkerHeartbeat } from '../common/storm-base.js';
import type { TopologyDef } from '../common/topology-def.js';
import { ZkPaths } from '../common/zk-paths.js';
import { Nimbus, type SubmitResult } from '../nimbus/nimbus.js';
import type { TopologyDetail } from '../nimbus/views.js';
import { Supervisor } from '../supervisor/supervisor.js';
import { StormTopology } from '../topology-sdk/topology-builder.js';
import { CONNECT_LOCAL } from '../topology-sdk/internal/component-source.js';
import { checkSameShape, loadConfiguredTopology, resolveModulePath } from '../worker/index.js';
import { TopologyLoadError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { fileURLToPath } from 'node:url';

export interface LocalClusterOptions {
  /** Where the embedded daemons log; default silent. */
  log?: Logger;
  /** Cluster config (e.g. `nimbus.scheduler`, `supervisor.gpus`); validated like hstorm.yaml. */
  clusterConfig?: RawConfig;
  /** Worker slots each supervisor offers (at least topology.workers). Default 4. Ignored when the config names `supervisor.slots.ports`. */
  portsNeeded?: number;
  /** How many supervisors. Default 1. */
  supervisors?: number;
  /** Worker entry script (tests use fixtures); default `dist/worker/main.js`. */
  workerEntry?: string;
  /** Data dir (kept); default a fresh temp dir, removed on shutdown (or at exit, common/temp-dirs.ts). */
  dataDir?: string;
  /** Copy the worker logs into this directory at shutdown, before the data dir is removed (`hstorm local --keep-logs`). */
  keepLogsIn?: string;
  /** SIGTERM → SIGKILL grace for workers. Default 5000. */
  workerStopGraceMs?: number;
}

export class LocalCluster {
  private stopped = false;
  /** Submissions with local endpoints so far: each gets directories of its own. */
  private submissions = 0;
  private shutdownPromise: Promise<void> | null = null;
  /** Last heartbeats, captured at shutdown so summaries can be read after the workers are gone. */
  private finalBeats = new Map<string, WorkerHeartbeat[]>();

  private constructor(
    readonly store: InMemoryClusterStore,
    readonly nimbus: Nimbus,
    /** The cluster config nimbus runs with (the supervisors' differs only in id and ports). */
    readonly config: Config,
    readonly supervisors: Supervisor[],
    readonly dataDir: string,
    /** [nimbus, supervisor 0, supervisor 1, …, reader]. */
    private readonly sessions: InMemorySession[],
    private readonly reader: InMemorySession,
    private readonly ownsDir: boolean,
    private readonly log: Logger,
    private readonly keepLogsIn: string | null,
  ) {}

  /** Starts nimbus and the supervisors; every option has a default (`await LocalCluster.start()`, as Storm's `new LocalCluster()`). */
  static async start(opts: LocalClusterOptions = {}): Promise<LocalCluster> {
    const log = opts.log ?? silentLogger();
    const dataDir = opts.dataDir ? resolve(opts.dataDir) : await makeTempDir('hstorm-local-');
    const ownsDir = !opts.dataDir;
    const user = opts.clusterConfig ?? {};
    // A temp dir is 0700: workers running as supervisor.worker.user must search it to reach their own directories.
    if (ownsDir && user['supervisor.worker.user'] != null) await chmod(dataDir, 0o711);
    const count = Math.max(1, opts.supervisors ?? 1);
    const perSup = Math.max(1, opts.portsNeeded ?? 4);
    // On a laptop without a GPU, GPU components still run (on a CPU backend, reported as a fallback). Metrics every
    // second: a local run is short and watched as it goes, and there is no cluster-sized ZooKeeper log to spare.
    const base: RawConfig = { 'hstorm.local.dir': dataDir, 'nimbus.scheduler.gpu.fallback.cpu': true, 'topology.stats.report.secs': 1 };
    const nimbusConfig = buildConfig([base, user], { allowUserKeys: false, where: 'local cluster config' });

    const store = new InMemoryClusterStore(log.child({ component: 'store' }));
    const nimbusSession = store.session();
    const nimbus = new Nimbus({ state: nimbusSession, config: nimbusConfig, log: log.child({ component: 'nimbus' }), blobDir: null });
    const sessions = [nimbusSession];
    const supervisors: Supervisor[] = [];
    const ports = Object.hasOwn(user, 'supervisor.slots.ports') ? nimbusConfig['supervisor.slots.ports'] : await freePorts(perSup * count);
    const share = Math.ceil(ports.length / count);
    await nimbus.start();
    try {
      for (let i = 0; i < count; i++) {
        const config: Config = buildConfig(
          [base, { 'supervisor.id': `local-${i}` }, user, { 'supervisor.slots.ports': ports.slice(i * share, (i + 1) * share) }],
          { allowUserKeys: false, where: 'local cluster config' },
        );
        const session = store.session();
        sessions.push(session);
        const supLog = log.child({ component: 'supervisor' });
        const sup = new Supervisor({
          state: session,
          config,
          log: supLog,
          ipc: (child) => serveClusterStateOverIpc(child, store, supLog),
          // hstorm.messaging.curve: keys come straight from the nimbus in this process; so does the workers' liveness.
          curveKeys: (id) => nimbus.curveKeys(id),
          workerBeats: (report) => Promise.resolve(nimbus.receiveWorkerBeats(report)),
          ...(opts.workerEntry && { workerEntry: opts.workerEntry }),
          ...(opts.workerStopGraceMs !== undefined && { workerStopGraceMs: opts.workerStopGraceMs }),
        });
        await sup.start();
        supervisors.push(sup);
      }
    } catch (err) {
      for (const s of supervisors) await s.stop().catch(() => undefined);
      await nimbus.stop();
      if (ownsDir) await removeTempDir(dataDir);
      throw err;
    }
    const reader = store.session();
    sessions.push(reader);
    return new LocalCluster(store, nimbus, nimbusConfig, supervisors, dataDir, sessions, reader, ownsDir, log, opts.keepLogsIn ?? null);
  }

  /**
   * Storm's `submitTopology(name, conf, topology)`. A topology runs in worker processes, which build it again from
   * its module: give the module (a path or file URL, .ts or .js, resolved as `hstorm local` resolves one), or a
   * StormTopology that knows it (`topology.origin`: loaded by hstorm, or created in a module file, whose default
   * export must then build it). The module is loaded with `conf` on top of its own config, exactly as `hstorm local`
   * loads it; a StormTopology given must be the one it builds (same components, streams and groupings). Returns
   * when nimbus has scheduled it.
   */
  async submitTopology(name: string, conf: RawConfig, topology: string | URL | StormTopology): Promise<SubmitResult & { topologyId: string }> {
    const origin = typeof topology === 'string' ? topology : topology instanceof URL ? fileURLToPath(topology) : topology.origin;
    if (!origin) {
      throw new TopologyLoadError(
        `submitTopology("${name}"): this topology does not say which module built it; pass the path of the module whose default export builds it (a topology runs in worker processes, which build it again from its module)`,
        '(unknown)',
      );
    }
    const modulePath = resolveModulePath(origin, packageRoot());
    if (!(topology instanceof StormTopology)) {
      const loaded = await loadConfiguredTopology(modulePath, conf);
      return this.submit(name, loaded.modulePath, loaded.def, { ...loaded.topologyConfig, ...this.connectLocalEndpoints(name, loaded.topology) });
    }
    let loaded: Awaited<ReturnType<typeof loadConfiguredTopology>>;
    try {
      loaded = await loadConfiguredTopology(modulePath, conf);
      checkSameShape(topology.def, loaded.def, modulePath);
    } catch (err) {
      throw new TopologyLoadError(
        `submitTopology("${name}"): the topology was built in ${origin}, but that module's default export builds another one (or none); put the topology in a module whose default export builds it and pass that module or its path (${(err as Error)?.message ?? String(err)})`,
        modulePath,
        { cause: err },
      );
    }
    // The components this process talks to are the ones of the topology it was given (its FeederSpouts).
    return this.submit(name, loaded.modulePath, loaded.def, { ...loaded.topologyConfig, ...this.connectLocalEndpoints(name, topology) });
  }

  /**
   * Connects the topology's local endpoints (hstorm/testing's FeederSpout) to the tasks of this submission, each through
   * a directory of its own under the data directory (every worker of a LocalCluster runs on this machine); returns
   * the topology config that tells the tasks where.
   */
  connectLocalEndpoints(name: string, topology: StormTopology): Record<string, unknown> {
    const config: Record<string, unknown> = {};
    if (topology.endpoints.size === 0) return config;
    const submission = `${name}-${++this.submissions}`;
    for (const [componentId, endpoint] of topology.endpoints) {
      const dir = join(this.dataDir, 'endpoints', submission, componentId);
      Object.assign(config, endpoint[CONNECT_LOCAL]({ componentId, dir, serializations: topology.serializations }));
    }
    return config;
  }

  /** Storm's killTopology: kills it and stops its workers at once. */
  killTopology(name: string): Promise<StormBase> {
    return this.kill(name, 0);
  }

  /** Storm's LocalCluster.close(): the same as shutdown. */
  close(): Promise<void> {
    return this.shutdown();
  }

  /** Submits a topology whose module is at `modulePath` (absolute or relative to the cwd). */
  async submit(name: string, modulePath: string, def: TopologyDef, config: RawConfig = {}): Promise<SubmitResult & { topologyId: string }> {
    const r = await this.nimbus.submit(name, def, config, { kind: 'path', path: resolve(modulePath) });
    return { ...r, topologyId: r.id };
  }

  topologyDetail(name: string): Promise<TopologyDetail> {
    return this.nimbus.readModel.topologyDetail(name);
  }

  /** The latest heartbeat of each worker of a topology; after shutdown, the last ones they wrote. */
  async heartbeats(topologyId: string): Promise<WorkerHeartbeat[]> {
    if (this.stopped) return this.finalBeats.get(topologyId) ?? [];
    return readBeats(this.reader, topologyId);
  }

  activate(name: string): Promise<StormBase> {
    return this.nimbus.activate(name);
  }

  setLogLevel(name: string, level: string, timeoutSecs?: number): Promise<StormBase> {
    return this.nimbus.setLogLevel(name, level, timeoutSecs);
  }

  deactivate(name: string): Promise<StormBase> {
    return this.nimbus.deactivate(name);
  }

  /** Kills a topology; with the default wait of 0 its workers are stopped at once. */
  kill(name: string, waitSecs = 0): Promise<StormBase> {
    return this.nimbus.kill(name, waitSecs);
  }

  rebalance(name: string, opts: { workers?: number; waitSecs?: number; executors?: Record<string, number> } = {}): Promise<StormBase> {
    return this.nimbus.rebalance(name, opts);
  }

  /** Fault injection: expires supervisor `i`'s store session as a ZooKeeper session expiry would. */
  expireSupervisorSession(i: number): boolean {
    const s = this.sessions[i + 1];
    return s !== undefined && i < this.supervisors.length && this.store.expireSession(s.sessionId);
  }

  /** Stops nimbus (no rescheduling while nodes leave), then every worker gracefully, then the store; idempotent. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.doShutdown();
    return this.shutdownPromise;
  }

  private async doShutdown(): Promise<void> {
    await this.nimbus.stop();
    await Promise.all(this.supervisors.map((s) => s.stop().catch((err: unknown) => this.log.warn({ err }, 'supervisor stop failed'))));
    try {
      for (const id of await this.reader.children(ZkPaths.workerbeats)) this.finalBeats.set(id, await readBeats(this.reader, id));
    } catch (err) {
      this.log.debug({ err }, 'could not read the final heartbeats');
    }
    this.stopped = true;
    for (const s of this.sessions) await s.close().catch(() => undefined);
    if (this.keepLogsIn) {
      await cp(join(this.dataDir, 'logs'), this.keepLogsIn, { recursive: true }).catch((err: unknown) => this.log.warn({ err, to: this.keepLogsIn }, 'could not copy the worker logs'));
    }
    if (this.ownsDir) await removeTempDir(this.dataDir);
  }
}

async function readBeats(session: InMemorySession, topologyId: string): Promise<WorkerHeartbeat[]> {
  const dir = ZkPaths.workerbeatsOf(topologyId);
  let names: string[];
  try {
    names = await session.children(dir);
  } catch (err) {
    if (isStateError(err, 'NO_NODE')) return [];
    throw err;
  }
  const out: WorkerHeartbeat[] = [];
  for (const name of names) {
    try {
      const path = ZkPaths.childOf(dir, name);
      const { data } = await session.get(path);
      // The schema keeps every field the worker wrote (loose objects), so this is the worker's own record.
      out.push(decodeJson(path, data, workerHeartbeatSchema) as WorkerHeartbeat);
    } catch {
      // gone between listing and reading, or half-written: skip this round
    }
  }
  return out;
}

/** Distinct ports free right now on all interfaces (the OS picks them). */
export async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) {
    const port = await new Promise<number>((res, rej) => {
      const srv = createServer();
      srv.once('error', rej);
      srv.listen(0, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => res(p));
      });
    });
    out.add(port);
  }
  return [...out];
}
