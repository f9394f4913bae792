/**
 * One point of `npm run bench -- scale`: a fresh ZooKeeper (fsync on, full
 * JIT, G1, 1 GiB heap), a real `hstorm nimbus` process, simulator processes
 * (bench/support/scale-sim.ts) playing `workers / 4` supervisors with 4 slots
 * each, and `workers / 50` word-count-shaped topologies of 50 workers
 * submitted over nimbus's HTTP API and placed by its scheduler. Once every
 * worker runs and a warm-up has passed, a window measures ZooKeeper (writes/s
 * and server update latency from `mntr`, a client write probe, CPU, the
 * transaction log's growth on disk) and nimbus (CPU, its rounds and skipped
 * ticks from /api/v1/nimbus/health, memory); then, still under load, the
 * latency of a submit, a rebalance and a kill, the time nimbus takes to move a
 * worker that stopped, and how long SIGTERM takes. Everything it started is
 * stopped and its data dir removed, whatever happens.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import type { Assignment } from '../../common/assignment.js';
import { connectZooKeeper, type ZooKeeperClusterState, type ZooKeeperOptions } from '../../common/cluster-state/zookeeper-store.js';
import { silentLogger } from '../../common/logger.js';
import { packageRoot } from '../../common/package-root.js';
import { makeTempDir, removeTempDir } from '../../common/temp-dirs.js';
import type { TopologyDef } from '../../common/topology-def.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { ZooKeeperServer } from '../../common/zookeeper-server.js';
import { NimbusClient } from '../../cli/nimbus-client.js';
import type { NimbusHealth } from '../../nimbus/index.js';
import { freePort } from '../../test/helpers/ports.js';
import { waitFor } from '../../test/helpers/wait-for.js';
import { largestGrowth, summarizeSnapshot, totalMb, type GrowthRow } from './heap-snapshot-diff.js';
import type { SimReply, SimRequest, SimStats } from './scale-sim.js';
import { memorySample, type MemorySample } from './scale-soak.js';
import { DISK_ABORT_FREE_BYTES, diskState, procCpuMs, quantile, WriteProbe, zkDiskBytes, zkMonitor } from './scale-measure.js';

export const WORKERS_PER_TOPOLOGY = 50;
export const SLOTS_PER_SUPERVISOR = 4;
/** hstorm's defaults, which the point runs at. */
export const TASK_TIMEOUT_SECS = 10;
export const MONITOR_SECS = 1;
const SHUTDOWN_BOUND_SECS = 10;

export interface PointOptions {
  workers: number;
  /** Where nimbus's log is kept when the point ends (its data dir is removed). */
  logDir: string;
  warmupSecs: number;
  windowSecs: number;
  /** Called with what is happening (the progress bar). */
  step: (what: string) => void;
  /** Memory samples during the window (soak): every this many seconds. */
  memoryEverySecs?: number;
  /** Soak: a heap snapshot of nimbus this many seconds into the window and another at its end, compared by constructor. */
  heapSnapshotAtSecs?: number;
}

/** The two heap snapshots of a soak compared: total own size of each, and the constructors that grew most. */
export interface HeapGrowth {
  atSecs: [number, number];
  totalMb: [number, number];
  rows: GrowthRow[];
}

export interface PointResult {
  workers: number;
  supervisors: number;
  topologies: number;
  windowSecs: number;
  zkWritesPerSec: number;
  zkProbeP50Ms: number;
  zkProbeP99Ms: number;
  zkServerUpdateP99Ms: number;
  zkCpuPct: number;
  /** The simulator processes together (what the simulation itself took from the machine). */
  simCpuPct: number;
  nimbusCpuPct: number;
  nimbusCpuMaxPct: number;
  roundP50Ms: number;
  roundMaxMs: number;
  rounds: number;
  skippedTicks: number;
  txnLogMbPerMin: number;
  snapshotMb: number;
  recordBytes: number;
  reportsPerSec: number;
  submitSecs: number;
  rebalanceSecs: number;
  killSecs: number;
  rampSubmitMaxSecs: number;
  /** Ramp submits retried after nimbus timed out on ZooKeeper (a loaded machine); the measured submits are never retried. */
  rampSubmitRetries: number;
  detectionSecs: number | null;
  sigtermSecs: number | null;
  nimbusRssMb: number;
  nimbusHeapMb: number;
  load1: number;
  memory: MemorySample[];
  heapGrowth: HeapGrowth | null;
  /** The supervisors' liveness reports over the window: one per supervisor per second is the period; fewer sent means the simulators starved. */
  simReports: { expected: number; sent: number; skipped: number; failed: number };
}

/** A word-count shape: sentences → split (shuffle) → count (fields), 6 executors a worker with one acker each. */
function wordCount(workers: number): TopologyDef {
  const stream = (fields: string[]) => [{ id: 'default', fields, direct: false }];
  return {
    components: [
      { id: 'sentences', kind: 'spout', parallelism: workers, streams: stream(['sentence']), inputs: [], gpu: null, config: {} },
      { id: 'split', kind: 'bolt', parallelism: 2 * workers, streams: stream(['word']), inputs: [{ component: 'sentences', stream: 'default', grouping: { type: 'shuffle' } }], gpu: null, config: {} },
      { id: 'count', kind: 'bolt', parallelism: 2 * workers, streams: stream(['word', 'count']), inputs: [{ component: 'split', stream: 'default', grouping: { type: 'fields', fields: ['word'] } }], gpu: null, config: {} },
    ],
    config: {},
  };
}

const BUNDLE = gzipSync(Buffer.from('export default null;\n'));
const BUNDLE_SHA = createHash('sha256').update(BUNDLE).digest('hex');

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; secs: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, secs: (performance.now() - t0) / 1000 };
}

class Sim {
  private readonly waiting: ((m: SimReply) => boolean)[] = [];
  readonly errors: string[] = [];

  constructor(readonly proc: ChildProcess) {
    proc.on('message', (m: SimReply) => {
      if (m.type === 'error') this.errors.push(m.message);
      const i = this.waiting.findIndex((w) => w(m));
      if (i >= 0) this.waiting.splice(i, 1);
    });
  }

  ask<T extends SimReply['type']>(req: SimRequest, replyType: T, timeoutMs: number): Promise<Extract<SimReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulator ${this.proc.pid} did not answer ${req.type} in ${timeoutMs} ms: ${this.errors.slice(-3).join('; ')}`)), timeoutMs);
      this.waiting.push((m) => {
        if (m.type !== replyType && !(m.type === 'error' && req.type === 'kill')) return false;
        clearTimeout(timer);
        if (m.type === 'error') reject(new Error(m.message));
        else resolve(m as Extract<SimReply, { type: T }>);
        return true;
      });
      this.proc.send(req);
    });
  }
}

function addStats(all: SimStats[]): SimStats {
  const sum: SimStats = { type: 'stats', supervisors: 0, workers: 0, reports: { sent: 0, failed: 0, skipped: 0 }, supervisorWrites: 0, supervisorUnchanged: 0, recordWrites: 0, recordFailures: 0 };
  for (const s of all) {
    sum.supervisors += s.supervisors;
    sum.workers += s.workers;
    sum.reports.sent += s.reports.sent;
    sum.reports.failed += s.reports.failed;
    sum.reports.skipped += s.reports.skipped;
    sum.supervisorWrites += s.supervisorWrites;
    sum.supervisorUnchanged += s.supervisorUnchanged;
    sum.recordWrites += s.recordWrites;
    sum.recordFailures += s.recordFailures;
  }
  return sum;
}

export async function runPoint(o: PointOptions): Promise<PointResult> {
  const supervisors = Math.ceil(o.workers / SLOTS_PER_SUPERVISOR);
  const topologies = Math.ceil(o.workers / WORKERS_PER_TOPOLOGY);
  const dir = await makeTempDir('hstorm-scale-');
  let zk: ZooKeeperServer | null = null;
  let nimbus: ChildProcess | null = null;
  const sims: Sim[] = [];
  let session: ZooKeeperClusterState | null = null;
  let probe: WriteProbe | null = null;
  try {
    o.step(`${o.workers} workers: ZooKeeper`);
    zk = await ZooKeeperServer.start({ port: await freePort(), host: '127.0.0.1', dataDir: join(dir, 'zk'), heapMb: 1024, serverJvm: true, startTimeoutMs: 60_000 });
    const zkOptions: ZooKeeperOptions = { servers: [zk.connectString], root: '/hstorm', sessionTimeoutMs: 6000, connectTimeoutMs: 30_000 };
    session = await connectZooKeeper(zkOptions, silentLogger());

    o.step(`${o.workers} workers: nimbus`);
    const httpPort = await freePort();
    const configFile = join(dir, 'nimbus.yaml');
    writeFileSync(
      configFile,
      stringify({ 'hstorm.zookeeper.servers': [zk.connectString], 'hstorm.zookeeper.root': '/hstorm', 'hstorm.local.dir': join(dir, 'nimbus'), 'nimbus.host': '127.0.0.1', 'nimbus.http.port': httpPort }),
    );
    const out = openSync(join(dir, 'nimbus.log'), 'a');
    // HSTORM_SCALE_NIMBUS_PROF=<dir>: nimbus writes a V8 CPU profile there when it stops (where its time goes).
    const prof = process.env.HSTORM_SCALE_NIMBUS_PROF;
    // Soak: SIGUSR2 makes nimbus write a heap snapshot into heapDir (V8 collects garbage first: what it holds is live).
    const heapDir = join(dir, 'heap');
    const snapshotFlags = o.heapSnapshotAtSecs ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`] : [];
    if (o.heapSnapshotAtSecs) mkdirSync(heapDir, { recursive: true });
    nimbus = spawn(process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), ...snapshotFlags, join(packageRoot(), 'bin', 'hstorm.js'), 'nimbus', '--config', configFile, '--bind', '127.0.0.1'], {
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    const nimbusPid = nimbus.pid!;
    const client = new NimbusClient('127.0.0.1', httpPort);
    const health = () => client.request<NimbusHealth>('GET', '/nimbus/health');
    await waitFor('nimbus answering', () => health().then(() => true), 60_000);

    o.step(`${o.workers} workers: ${supervisors} supervisors`);
    const simCount = Math.min(4, Math.max(1, Math.ceil(supervisors / 100)));
    const ids = Array.from({ length: supervisors }, (_, i) => `sim-${String(i).padStart(5, '0')}`);
    for (let k = 0; k < simCount; k++) {
      const proc = fork(join(packageRoot(), 'dist', 'bench', 'support', 'scale-sim.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      sims.push(new Sim(proc));
    }
    await Promise.all(
      sims.map((s, k) =>
        s.ask(
          {
            type: 'start',
            zk: zkOptions,
            nimbus: { host: '127.0.0.1', port: httpPort },
            supervisors: ids.filter((_, i) => i % simCount === k),
            ports: Array.from({ length: SLOTS_PER_SUPERVISOR }, (_, j) => 6700 + j),
            beatMs: 1000,
            metricsMs: 10_000,
            supervisorBeatMs: 1000,
            collectorMs: 5000,
            pidBase: 1_000_000 * (k + 1),
          },
          'ready',
          15 * 60_000,
        ),
      ),
    );
    await waitFor(`nimbus listing ${supervisors} supervisors`, async () => (await client.supervisors()).length === supervisors, 5 * 60_000, 1000);

    o.step(`${o.workers} workers: ${topologies} topologies`);
    let rampSubmitMaxSecs = 0;
    let rampSubmitRetries = 0;
    for (let t = 0; t < topologies; t++) {
      const n = Math.min(WORKERS_PER_TOPOLOGY, o.workers - t * WORKERS_PER_TOPOLOGY);
      const { secs } = await timed(() => rampSubmit(client, `wc-${t}`, n, () => rampSubmitRetries++));
      rampSubmitMaxSecs = Math.max(rampSubmitMaxSecs, secs);
    }
    const simStats = async () => addStats(await Promise.all(sims.map((s) => s.ask({ type: 'stats' }, 'stats', 60_000))));
    await waitFor(`${o.workers} workers running`, async () => (await simStats()).workers >= o.workers, 15 * 60_000, 2000);
    await waitFor('every supervisor reporting to nimbus', async () => (await health()).liveness.reportingSupervisors >= supervisors, 5 * 60_000, 1000);

    probe = new WriteProbe(session, '/probe/latency');
    await probe.start();
    o.step(`${o.workers} workers: warm-up`);
    await new Promise((r) => setTimeout(r, o.warmupSecs * 1000));

    o.step(`${o.workers} workers: measuring ${o.windowSecs} s`);
    const zkPid = zk.pid!;
    const t0 = performance.now();
    const mntr0 = await zkMonitor('127.0.0.1', zk.port);
    const disk0 = zkDiskBytes(join(dir, 'zk'));
    const simCpu = (): number => sims.reduce((a, x) => a + (procCpuMs(x.proc.pid!) ?? 0), 0);
    const cpu0 = { nimbus: procCpuMs(nimbusPid)!, zk: procCpuMs(zkPid)!, sims: simCpu() };
    const h0 = await health();
    const sim0 = await simStats();
    probe.reset();
    const perSecond: number[] = [];
    const rounds = new Map<number, number>();
    const memory: PointResult['memory'] = [];
    const memoryLog = join(o.logDir, `memory-${o.workers}.csv`);
    if (o.memoryEverySecs) {
      mkdirSync(o.logDir, { recursive: true });
      writeFileSync(memoryLog, `${MEMORY_COLUMNS.join(',')}\n`);
    }
    const snapshots: { atSecs: number; file: string }[] = [];
    let snapshotGcs = -1;
    const loads: number[] = [];
    let last = { at: performance.now(), cpu: cpu0.nimbus };
    const collectRounds = (h: NimbusHealth): void => {
      // recentMs holds the latest rounds, oldest first; round k (since start) is count − length + i.
      h.monitor.recentMs.forEach((ms, i) => {
        const k = h.monitor.count - h.monitor.recentMs.length + i;
        if (k >= h0.monitor.count) rounds.set(k, ms);
      });
    };
    for (let s = 1; s <= o.windowSecs; s++) {
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + s * 1000 - performance.now())));
      const now = performance.now();
      const cpu = procCpuMs(nimbusPid);
      if (cpu === null) throw new Error(`nimbus exited during the window; its log: ${join(dir, 'nimbus.log')}`);
      perSecond.push(((cpu - last.cpu) / (now - last.at)) * 100);
      last = { at: now, cpu };
      loads.push(loadavg()[0] ?? 0);
      if (s % 20 === 0 || s === o.windowSecs) collectRounds(await health());
      if (o.memoryEverySecs && s % o.memoryEverySecs === 0) {
        const sample = memorySample(s, (await health()).memory);
        if (sample.majorGcs <= snapshotGcs) sample.heapAfterGcMb = null;
        memory.push(sample);
        // Also as it goes: a soak stopped early still leaves the samples it took.
        appendFileSync(memoryLog, `${MEMORY_COLUMNS.map((c) => sample[c]?.toFixed(1) ?? '').join(',')}\n`);
      }
      if (o.heapSnapshotAtSecs && s === o.heapSnapshotAtSecs) {
        snapshots.push({ atSecs: s, file: await heapSnapshot(nimbusPid, heapDir, health) });
        // The snapshot's own collection is a full compacting one, lower than any V8 runs by itself: not a floor.
        snapshotGcs = (await health()).memory.majorGcs;
      }
      if (diskState(dir).freeBytes < DISK_ABORT_FREE_BYTES) throw new Error(`scale: stopped at ${o.workers} workers: less than ${DISK_ABORT_FREE_BYTES / 2 ** 30} GiB left on the disk of ${dir}`);
    }
    const secs = (performance.now() - t0) / 1000;
    const mntr1 = await zkMonitor('127.0.0.1', zk.port);
    const disk1 = zkDiskBytes(join(dir, 'zk'));
    const cpu1 = { nimbus: procCpuMs(nimbusPid)!, zk: procCpuMs(zkPid)!, sims: simCpu() };
    const h1 = await health();
    collectRounds(h1);
    const probeLatencies = [...probe.latencies];
    const recordBytes = await sampleRecordBytes(session);
    const sim1 = await simStats();
    if (o.heapSnapshotAtSecs) {
      o.step(`${o.workers} workers: heap snapshot at the end of the window`);
      snapshots.push({ atSecs: Math.round(secs), file: await heapSnapshot(nimbusPid, heapDir, health) });
    }

    o.step(`${o.workers} workers: submit, rebalance, kill, detection`);
    const probeDef = wordCount(1);
    const submit = await timed(() => client.submit({ name: 'probe', def: probeDef, config: { 'topology.workers': 1 }, bundle: BUNDLE.toString('base64'), sha256: BUNDLE_SHA }));
    const rebalance = await timed(() => client.rebalance('probe', { workers: 1, waitSecs: 0 }));
    const kill = await timed(() => client.kill('probe', 0));
    const detectionSecs = await detection(sims, session, 'wc-0', (await client.topologies()).find((t) => t.name === 'wc-0')?.id ?? null);

    o.step(`${o.workers} workers: SIGTERM`);
    const sigtermSecs = await stopWithin(nimbus, 60_000);
    nimbus = null;
    let heapGrowth: HeapGrowth | null = null;
    if (snapshots.length === 2) {
      o.step(`${o.workers} workers: comparing heap snapshots`);
      // HSTORM_SCALE_KEEP_HEAP=<dir>: the snapshots are kept there (open them in DevTools' Memory tab); else removed with the data dir.
      const keep = process.env.HSTORM_SCALE_KEEP_HEAP;
      if (keep) {
        mkdirSync(keep, { recursive: true });
        for (const x of snapshots) copyFileSync(x.file, join(keep, `nimbus-${o.workers}-${x.atSecs}s.heapsnapshot`));
      }
      const [a, b] = snapshots.map((x) => summarizeSnapshot(x.file)) as [ReturnType<typeof summarizeSnapshot>, ReturnType<typeof summarizeSnapshot>];
      heapGrowth = { atSecs: [snapshots[0]!.atSecs, snapshots[1]!.atSecs], totalMb: [totalMb(a), totalMb(b)], rows: largestGrowth(a, b) };
    }
    const roundList = [...rounds.values()];
    const mb = 2 ** 20;
    return {
      workers: o.workers,
      supervisors,
      topologies,
      windowSecs: secs,
      zkWritesPerSec: ((mntr1.get('zk_cnt_updatelatency') ?? 0) - (mntr0.get('zk_cnt_updatelatency') ?? 0)) / secs,
      zkProbeP50Ms: quantile(probeLatencies, 0.5),
      zkProbeP99Ms: quantile(probeLatencies, 0.99),
      zkServerUpdateP99Ms: mntr1.get('zk_p99_updatelatency') ?? 0,
      zkCpuPct: ((cpu1.zk - cpu0.zk) / (secs * 1000)) * 100,
      simCpuPct: ((cpu1.sims - cpu0.sims) / (secs * 1000)) * 100,
      nimbusCpuPct: ((cpu1.nimbus - cpu0.nimbus) / (secs * 1000)) * 100,
      nimbusCpuMaxPct: Math.max(0, ...perSecond),
      roundP50Ms: quantile(roundList, 0.5),
      roundMaxMs: Math.max(0, ...roundList),
      rounds: h1.monitor.count - h0.monitor.count,
      skippedTicks: h1.monitor.skippedTicks - h0.monitor.skippedTicks,
      txnLogMbPerMin: ((disk1.log - disk0.log) / mb / secs) * 60,
      snapshotMb: disk1.snapshots / mb,
      recordBytes,
      reportsPerSec: (h1.liveness.reports - h0.liveness.reports) / secs,
      submitSecs: submit.secs,
      rebalanceSecs: rebalance.secs,
      killSecs: kill.secs,
      rampSubmitMaxSecs,
      rampSubmitRetries,
      detectionSecs,
      sigtermSecs,
      nimbusRssMb: h1.memory.rssBytes / mb,
      nimbusHeapMb: h1.memory.heapUsedBytes / mb,
      load1: loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length),
      memory,
      heapGrowth,
      simReports: {
        expected: Math.round(supervisors * secs),
        sent: sim1.reports.sent - sim0.reports.sent,
        skipped: sim1.reports.skipped - sim0.reports.skipped,
        failed: sim1.reports.failed - sim0.reports.failed,
      },
    };
  } finally {
    probe?.stop();
    await Promise.all(sims.map((s) => s.ask({ type: 'stop' }, 'stopped', 60_000).catch(() => undefined)));
    for (const s of sims) if (s.proc.exitCode === null) s.proc.kill('SIGKILL');
    if (nimbus) await stopWithin(nimbus, 30_000).catch(() => undefined);
    await session?.close().catch(() => undefined);
    await zk?.stop();
    keepLog(join(dir, 'nimbus.log'), join(o.logDir, `nimbus-${o.workers}.log`));
    await removeTempDir(dir);
  }
}

/**
 * One submit of the ramp (setting the cluster up, not a measurement): on a
 * loaded machine nimbus may time out on ZooKeeper (HSTORM_ERR_STATE_TIMEOUT);
 * then the submit is tried again, twice at most, unless it went through after all.
 */
async function rampSubmit(client: NimbusClient, name: string, workers: number, retried: () => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.submit({ name, def: wordCount(workers), config: { 'topology.workers': workers }, bundle: BUNDLE.toString('base64'), sha256: BUNDLE_SHA });
      return;
    } catch (err) {
      if (attempt >= 3 || (err as { code?: string }).code !== 'HSTORM_ERR_STATE_TIMEOUT') throw err;
      retried();
      if ((await client.topologies()).some((t) => t.name === name)) return;
    }
  }
}

/** The columns of memory-N.csv (the soak's samples, written as they are taken). */
const MEMORY_COLUMNS = ['atSecs', 'rssMb', 'heapUsedMb', 'heapTotalMb', 'externalMb', 'arrayBuffersMb', 'heapAfterGcMb', 'majorGcs'] as const;

/** Signals nimbus to write a heap snapshot and returns its file once written (nimbus answers again only then). */
async function heapSnapshot(pid: number, dir: string, health: () => Promise<unknown>): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  return waitFor(
    'nimbus writing a heap snapshot',
    async () => {
      const name = readdirSync(dir).find((n) => !before.has(n) && n.endsWith('.heapsnapshot'));
      if (!name) return null;
      // The snapshot is written on nimbus's main thread: once it answers, the file is complete.
      await health();
      return join(dir, name);
    },
    10 * 60_000,
    500,
  );
}

/** Keeps the last 4 MB of nimbus's log beside the results (the data dir goes). */
function keepLog(from: string, to: string): void {
  try {
    const text = readFileSync(from);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text.subarray(Math.max(0, text.length - 4 * 2 ** 20)));
  } catch {
    // nimbus never started: nothing to keep
  }
}

/** What nimbus's log says of its ZooKeeper session and of workers it declared dead. */
export function logCounts(file: string): { sessionChanges: number; deadVerdicts: number; clientReplacements: number } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { sessionChanges: 0, deadVerdicts: 0, clientReplacements: 0 };
  }
  const count = (re: RegExp): number => text.split('\n').filter((l) => re.test(l)).length;
  return {
    sessionChanges: count(/store session state changed/),
    deadVerdicts: count(/workers stopped heartbeating/),
    clientReplacements: count(/replacing the ZooKeeper client/),
  };
}

/** Mean size (bytes, as stored) of up to 40 worker metrics records. */
async function sampleRecordBytes(session: ZooKeeperClusterState): Promise<number> {
  const sizes: number[] = [];
  for (const id of await session.children(ZkPaths.workerbeats)) {
    for (const name of (await session.children(ZkPaths.workerbeatsOf(id))).slice(0, 10)) {
      const node = await session.get(ZkPaths.childOf(ZkPaths.workerbeatsOf(id), name)).catch(() => null);
      if (node) sizes.push(node.data.length);
      if (sizes.length >= 40) return sizes.reduce((a, b) => a + b, 0) / sizes.length;
    }
  }
  return sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : 0;
}

/** Stops one worker of `topologyId` as a kill would, and waits for nimbus to write an assignment without it. */
async function detection(sims: readonly Sim[], session: ZooKeeperClusterState, name: string, topologyId: string | null): Promise<number | null> {
  if (!topologyId) return null;
  for (const s of sims) {
    const killed = await s.ask({ type: 'kill', topologyId }, 'killed', 30_000).catch(() => null);
    if (!killed) continue;
    const gone = await waitFor(
      `nimbus moving the stopped worker of ${name}`,
      async () => {
        const a = JSON.parse((await session.get(ZkPaths.assignment(topologyId))).data.toString('utf8')) as Assignment;
        return a.workers.some((w) => w.supervisorId === killed.supervisorId && w.port === killed.port) ? null : Date.now();
      },
      120_000,
      50,
    );
    return (gone - killed.at) / 1000;
  }
  return null;
}

/** SIGTERM, and the seconds until the process is gone (SIGKILL after `killAfterMs`: then null). */
function stopWithin(proc: ChildProcess, killAfterMs: number): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(0);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      resolve(null);
    }, killAfterMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve((performance.now() - t0) / 1000);
    });
    proc.kill('SIGTERM');
  });
}

export { SHUTDOWN_BOUND_SECS };
