/**
 * Several topologies on one live cluster of separate processes under HDRF
 * (`nimbus.scheduler: hdrf`): GPU memory as a resource, a waiting topology
 * that is visible and starts nothing, and freed resources reused at once by
 * an event rather than a periodic round.
 *
 * One supervisor with one declared GPU of 4096 MB and 4 slots. Topology a asks
 * one GPU worker of 3072 MB and gets it; b asks the same and waits — slots are
 * free, GPU memory is not — visible in `hstorm list`, `describe` and the queue
 * API, with no worker of b started. `hstorm kill a --wait 0` frees the GPU and
 * b's GPU worker runs on it: the test prints the time from the kill to b's
 * assignment and to b's worker's first heartbeat. nimbus.monitor.freq.secs is
 * 300 (Storm's default monitor period is 10 s), so only an event can have
 * scheduled b within the generous (loaded-machine) 60 s bound asserted below. Then c waits the same
 * way, and a second GPU supervisor joining (ZooKeeper children watch on
 * /supervisors → nimbus reconcile) gets c running on its GPU.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { readJson } from '../../common/cluster-state/json-node.js';
import type { Assignment } from '../../common/assignment.js';
import type { DeclaredGpu } from '../../common/config/schema.js';
import { silentLogger } from '../../common/logger.js';
import { assignmentSchema } from '../../common/record-schemas.js';
import { ZkPaths } from '../../common/zk-paths.js';
import type { QueueListing } from '../../nimbus/views.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, waitFor } from '../helpers/cluster-processes.js';

const GPU_TOPOLOGY = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'gpu-topology.js');
const MONITOR_SECS = 300;
const GPU: DeclaredGpu = { id: 'gtx1060', name: 'GeForce GTX 1060', smCount: 10, coresPerSm: 128, clockMHz: 1708, memoryMB: 4096, computeCapability: '6.1', slots: 4 };
const GPU2: DeclaredGpu = { ...GPU, id: 'gtx1060-b' };
/** One GPU worker with one multiply executor of 3072 MB, one CPU worker; two ackers (one per worker). */
const ASK = { 'topology.workers': 2, 'topology.gpu.workers': 1, 'gpu.parallelism': 1, 'topology.gpu.memory.mb': 3072, 'gpu.rate': 5 };

describe('HDRF on a live cluster: GPU memory, a visible queue, freed resources reused at once (real processes)', function () {
  this.timeout(180_000);
  let cluster: ProcessCluster;
  let zk: ZooKeeperClusterState | null = null;

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({
      supervisors: [{ id: 'sup-gpu', slots: 4, gpus: [GPU] }],
      config: {
        'hstorm.zookeeper.session.timeout.ms': 4000,
        'nimbus.scheduler': 'hdrf',
        'nimbus.monitor.freq.secs': MONITOR_SECS,
        // Cores and memory declared, so the shares do not depend on the test machine.
        'supervisor.cpu.cores': 8,
        'supervisor.memory.mb': 8192,
      },
    });
    zk = await connectZooKeeper({ servers: [cluster.zkConnect], root: cluster.root, sessionTimeoutMs: 10_000, connectTimeoutMs: 30_000 }, silentLogger());
  });

  after(async function () {
    this.timeout(90_000);
    await zk?.close().catch(() => undefined);
    await cluster?.stop();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !cluster) return;
    process.stderr.write(`${cluster.logs()}\n`);
    await cluster.killAll().catch((err: unknown) => process.stderr.write(`could not clean up topologies: ${(err as Error).message}\n`));
  });

  const assignmentOf = async (id: string): Promise<Assignment | null> => (await readJson(zk!, ZkPaths.assignment(id), assignmentSchema).catch(() => null))?.value ?? null;

  /** The topology's GPU worker heartbeating from the given GPU: when its heartbeat node was created (ZooKeeper's clock). */
  async function gpuWorkerRunning(name: string, gpuId: string): Promise<{ firstBeatAt: number; supervisor: string; port: number }> {
    return waitFor(
      `${name}'s GPU worker running on ${gpuId}`,
      async () => {
        const d = await cluster.describe(name);
        const w = d.workers.find((x) => x.gpu?.gpuId === gpuId);
        // Its own heartbeat, of the current epoch, from a live process (nimbus's liveness verdict waits for a monitor tick, 30 s here).
        if (!w || !w.metrics || w.metrics.epoch !== d.epoch || !processAlive(w.metrics.pid)) return null;
        cluster.trackPids(d.workers.flatMap((x) => (x.metrics ? [x.metrics.pid] : [])));
        const stat = await zk!.exists(ZkPaths.workerbeat(d.id, w.supervisor, w.port));
        return stat ? { firstBeatAt: stat.ctime, supervisor: w.supervisor, port: w.port } : null;
      },
      60_000,
      100,
    );
  }

  it('queues b behind a for GPU memory, shows it, starts nothing of it, and runs it on the GPU a frees the moment a is killed', async () => {
    await cluster.submit(GPU_TOPOLOGY, 'a', ASK);
    await gpuWorkerRunning('a', 'gtx1060');
    const b = await cluster.submit(GPU_TOPOLOGY, 'b', ASK);

    // b waits: 4096 − 3072 = 1024 MB of GPU memory left, although 3 of the GPU's 4 slots are free.
    const rows = await cluster.list();
    const ra = rows.find((t) => t.name === 'a')!;
    const rb = rows.find((t) => t.name === 'b')!;
    assert.equal(ra.queue, null);
    assert.equal(ra.dominantShare, 0.75, 'a holds 3072 of 4096 MB of GPU memory');
    assert.equal(rb.workers, 0);
    assert.equal(rb.unassigned, rb.executors);
    assert.equal(rb.dominantShare, 0);
    assert.equal(rb.queue?.state, 'waiting');
    assert.match(rb.queue!.reason, /^waiting \d+ s: needs 2 workers \(1 GPU × 3072 MB\), 0\.5 cores, 640 MB; short of GPU memory \(a GPU worker needs 3072 MB, the most free on a GPU with a free slot is 1024 MB\)$/);
    const text = await cluster.cli(['list']);
    assert.match(text.stdout, /DOM SHARE\s+QUEUE/);
    assert.match(text.stdout, /HDRF queue:\n {2}b: waiting \d+ s: needs 2 workers/);
    const db = await cluster.describe('b');
    assert.deepEqual(db.workers, [], 'a waiting topology is never half-started');
    assert.ok(db.unassigned.every((u) => /^HDRF: waiting \d+ s: /.test(u.reason)));
    assert.equal(db.queue?.needs, '2 workers (1 GPU × 3072 MB), 0.5 cores, 640 MB');
    const api = (await (await fetch(`${cluster.url}/scheduler/queue`)).json()) as QueueListing;
    assert.deepEqual([api.fairness, api.queue.map((q) => q.name)], ['hdrf', ['b']]);
    assert.equal(cluster.workerPids('sup-gpu').length, 2, "only a's two workers run");
    // The Storm UI cluster summary: RAS's assigned percentages from hstorm's bookkeeping, the queue under `hstorm`.
    const summary = (await (await fetch(`${cluster.url}/cluster/summary`)).json()) as {
      cpuAssignedPercentUtil: number;
      hstorm: { fairness: string; queued: number; resources: { total: { cpu: number; gpuMemoryMB: number }; held: { cpu: number; gpuMemoryMB: number } } };
    };
    assert.deepEqual([summary.hstorm.fairness, summary.hstorm.queued, summary.hstorm.resources.total.gpuMemoryMB, summary.hstorm.resources.held.gpuMemoryMB], ['hdrf', 1, 4096, 3072]);
    assert.equal(summary.cpuAssignedPercentUtil, 6.3, "a's 0.5 cores of 8");

    // Free the GPU: the kill's own reconcile round removes a and admits b.
    const killStarted = Date.now();
    const killed = await cluster.cli(['kill', 'a', '--wait', '0']);
    const killReturned = Date.now();
    assert.equal(killed.code, 0, killed.stderr);
    const admitted = await waitFor('b admitted', async () => {
      const x = await assignmentOf(b.id);
      return x && !x.queue && x.workers.some((w) => w.gpu?.gpuId === 'gtx1060') ? x : null;
    }, 60_000, 50);
    const running = await gpuWorkerRunning('b', 'gtx1060');
    const scheduledMs = admitted.createdAt - killStarted;
    const startupMs = running.firstBeatAt - admitted.createdAt;
    process.stdout.write(
      `      freed GPU slot reused (kill a → b): b scheduled on the freed GPU ${scheduledMs} ms after \`hstorm kill a --wait 0\` was started ` +
        `(the command itself returned after ${killReturned - killStarted} ms, Node start-up included); ` +
        `b's GPU worker running (first heartbeat) ${startupMs} ms later — ${scheduledMs + startupMs} ms in all; ` +
        `nimbus.monitor.freq.secs = ${MONITOR_SECS} (Storm's default monitor period: 10 s)\n`,
    );
    assert.match(admitted.workers.find((w) => w.gpu)!.reason, /^HDRF: admitted: dominant share 0\.00 is the smallest whose request fits/);
    // Generous (a loaded 2-core machine), and still far below the 300 s monitor period: only the kill's event can have scheduled b.
    assert.ok(scheduledMs < 60_000, `b was scheduled ${scheduledMs} ms after the kill`);
  });

  it('runs a waiting topology on the GPU of a supervisor that joins, through the /supervisors watch', async () => {
    const c = await cluster.submit(GPU_TOPOLOGY, 'c', ASK);
    const waiting = await assignmentOf(c.id);
    assert.equal(waiting?.queue?.state, 'waiting', 'b holds 3072 MB of the only GPU');

    await cluster.addSupervisor({ id: 'sup-gpu-2', slots: 3, gpus: [GPU2] });
    const joined = (await zk!.exists(ZkPaths.supervisor('sup-gpu-2')))!.ctime;
    const admitted = await waitFor('c admitted on the new GPU', async () => {
      const x = await assignmentOf(c.id);
      return x && !x.queue && x.workers.some((w) => w.gpu?.gpuId === 'gtx1060-b') ? x : null;
    }, 60_000, 50);
    const running = await gpuWorkerRunning('c', 'gtx1060-b');
    assert.equal(running.supervisor, 'sup-gpu-2');
    process.stdout.write(
      `      new supervisor used (watch on /supervisors): c scheduled ${admitted.createdAt - joined} ms after sup-gpu-2 registered; ` +
        `its GPU worker running ${running.firstBeatAt - admitted.createdAt} ms later\n`,
    );
    // As above: far below the monitor period, so only the /supervisors watch can have scheduled c.
    assert.ok(admitted.createdAt - joined < 60_000, `c was scheduled ${admitted.createdAt - joined} ms after the supervisor joined`);
    for (const name of ['b', 'c']) {
      const r = await cluster.cli(['kill', name, '--wait', '0']);
      assert.equal(r.code, 0, r.stderr);
    }
  });
});
