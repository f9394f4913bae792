/**
 * The heterogeneous scheduler on a live cluster of separate processes: two
 * supervisors, one with two declared GPUs (a GTX 1060 and a GTX 970, two slots
 * each), one with none; `nimbus.scheduler: hetero`. A topology with a `.gpu()`
 * GpuBolt gets its GPU workers on GPU slots (chosen by Algorithm 3's scores,
 * shown in the reasons), its kernels run on a CPU backend because the GPUs are
 * declared, and `describe` says so. When the GPU node dies, the GPU executors
 * are reported unassigned with the reason (no GPU slot is left and nimbus does
 * not fall back to CPU workers), while every other executor moves to the CPU
 * node. `hstorm schedule` gives the same placement as a dry run.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { readJson } from '../../common/cluster-state/json-node.js';
import type { DeclaredGpu } from '../../common/config/schema.js';
import { silentLogger } from '../../common/logger.js';
import { workerHeartbeatSchema } from '../../common/record-schemas.js';
import { ZkPaths } from '../../common/zk-paths.js';
import type { DryRunResult } from '../../nimbus/dry-run.js';
import type { TopologyDetail } from '../../nimbus/views.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, waitFor } from '../helpers/cluster-processes.js';

const GPU_TOPOLOGY = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'gpu-topology.js');

const GTX1060: DeclaredGpu = { id: 'gtx1060', name: 'GeForce GTX 1060', smCount: 10, coresPerSm: 128, clockMHz: 1708, memoryMB: 6144, computeCapability: '6.1', slots: 2 };
const GTX970: DeclaredGpu = { id: 'gtx970', name: 'GeForce GTX 970', smCount: 13, coresPerSm: 128, clockMHz: 1253, memoryMB: 4096, computeCapability: '5.2', slots: 2 };

/** Formula 8 normalised by the best GPU, and Algorithm 3's score with β = 0.3 for a GPU with all slots free. */
const perf1060 = 10 * 128 * 1708;
const perf970 = 13 * 128 * 1253;
const score970 = (0.3 * perf970) / perf1060 + 0.7;

function tasksOf(d: TopologyDetail): number {
  return d.workers.reduce((n, w) => n + w.executors.reduce((m, e) => m + e.tasks.length, 0), 0) + d.unassigned.length;
}

function placement(workers: { supervisor: string; port: number; gpu: string | null; tasks: number[] }[]): string[] {
  return workers.map((w) => `${w.supervisor}:${w.port}:${w.gpu ?? 'cpu'}:${[...w.tasks].sort((a, b) => a - b).join(',')}`).sort();
}

describe('heterogeneous cluster with declared GPUs (real processes)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let zk: ZooKeeperClusterState | null = null;

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({
      supervisors: [
        { id: 'sup-gpu', slots: 3, gpus: [GTX1060, GTX970] },
        { id: 'sup-cpu', slots: 3 },
      ],
      config: { 'hstorm.zookeeper.session.timeout.ms': 4000, 'nimbus.scheduler': 'hetero' },
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
    // What a failed test left running must not take the next test's slots.
    await cluster.killAll().catch((err: unknown) => process.stderr.write(`could not clean up topologies: ${(err as Error).message}\n`));
  });

  it('reports the declared GPUs of a supervisor as declared', async () => {
    const sups = await cluster.supervisorList();
    const gpuSup = sups.find((s) => s.id === 'sup-gpu');
    assert.ok(gpuSup);
    assert.deepEqual(gpuSup.gpus.map((g) => [g.id, g.source, g.declared, g.slots, g.performance]), [
      ['gtx1060', 'declared', true, 2, perf1060],
      ['gtx970', 'declared', true, 2, perf970],
    ]);
    assert.deepEqual(sups.find((s) => s.id === 'sup-cpu')?.gpus, []);
  });

  it('places GPU workers on GPU slots by score, runs the kernel on a CPU backend, and reports the GPU executors unassigned when the GPU node dies', async () => {
    await cluster.submit(GPU_TOPOLOGY, 'gpu', { 'topology.workers': 3, 'topology.gpu.workers': 2 });
    const detail = await waitFor(
      'the GPU topology running and verified',
      async () => {
        const d = await cluster.describe('gpu');
        const running = d.workers.length === 3 && d.workers.every((w) => w.liveness === 'alive' && w.metrics && processAlive(w.metrics.pid));
        return running && d.components.multiply!.backends.length > 0 && (d.components.verify?.executed ?? 0) >= 10 ? d : null;
      },
      60_000,
      300,
    );
    cluster.trackPids(detail.workers.map((w) => w.metrics!.pid));
    assert.equal(detail.scheduler, 'hetero');
    assert.deepEqual(detail.unassigned, []);

    // Two GPU workers on sup-gpu, one per GPU (β = 0.3: the 1060 scores 1.000, then the idle 970
    // at 0.986 beats the half-used 1060 at 0.650), each holding one multiply executor.
    const gpuWorkers = detail.workers.filter((w) => w.gpu !== null);
    assert.equal(gpuWorkers.length, 2);
    for (const w of gpuWorkers) {
      assert.equal(w.supervisor, 'sup-gpu');
      assert.equal(w.gpu!.source, 'declared');
      assert.deepEqual(w.executors.map((e) => [e.component, e.tasks.length]), [['multiply', 1]]);
      assert.match(w.reason, /Algorithm 3 \(β=0\.3\)/);
      assert.match(w.reason, new RegExp(`${w.gpu!.gpuId} on sup-gpu score \\d\\.\\d{3}`));
    }
    const by = new Map(gpuWorkers.map((w) => [w.gpu!.gpuId, w]));
    assert.deepEqual([...by.keys()].sort(), ['gtx1060', 'gtx970']);
    assert.match(by.get('gtx1060')!.reason, /score 1\.000 = β×perf 1\.000 \+ \(1−β\)×spare 1\.000/);
    assert.match(by.get('gtx970')!.reason, new RegExp(`score ${score970.toFixed(3)} `));
    assert.match(by.get('gtx970')!.reason, /gtx1060@sup-gpu 0\.650/, 'the half-used 1060 was a candidate with its lower score');
    // The CPU executors share one CPU worker.
    const cpuWorkers = detail.workers.filter((w) => w.gpu === null);
    assert.equal(cpuWorkers.length, 1);
    assert.deepEqual(cpuWorkers[0]!.executors.map((e) => e.component).sort(), ['__acker', 'matrices', 'verify']);

    // The GPU component ran, on a CPU backend (declared GPUs have no device), and says so.
    const multiply = detail.components.multiply!;
    assert.equal(multiply.gpu, true);
    assert.ok(multiply.executed > 0);
    assert.ok(multiply.backends.every((b) => b === 'webasm' || b === 'cpu'), `backends ${multiply.backends.join(',')}`);
    assert.equal(detail.components.verify!.failed, 0, 'every product checked out');
    for (const w of gpuWorkers) {
      // The metrics record is written every topology.stats.report.secs: the first may predate the kernel's first run
      // (its backend is null until a launch ran).
      const gpu = await waitFor(`a metrics record of ${w.port} with the GPU bolt's backend`, async () => {
        const { value: beat } = await readJson(zk!, ZkPaths.workerbeat(detail.id, w.supervisor, w.port), workerHeartbeatSchema);
        const g = beat.executors.find((e) => e.component === 'multiply')?.gpu as Record<string, unknown> | undefined;
        return typeof g?.backend === 'string' ? g : null;
      }, 60_000, 300);
      assert.equal(gpu.fallback, true);
      assert.equal(gpu.requestedBackend, 'webgpu');
      assert.ok(gpu.backend === 'webasm' || gpu.backend === 'cpu', `backend ${JSON.stringify(gpu)}`);
      assert.match(String(gpu.fallbackReason), /declared in config/);
    }
    const before = tasksOf(detail);

    // The GPU node dies with its workers.
    await cluster.kill9Supervisor('sup-gpu');
    const after = await waitFor(
      'the topology rescheduled without sup-gpu',
      async () => {
        const d = await cluster.describe('gpu');
        return d.epoch! > detail.epoch! && d.workers.every((w) => w.supervisor === 'sup-cpu') ? d : null;
      },
      60_000,
      300,
    );
    // hetero without CPU fallback: no GPU slot is left, so the GPU executors wait, each with the reason.
    const multiplyTasks = gpuWorkers.flatMap((w) => w.executors.flatMap((e) => e.tasks)).sort((a, b) => a - b);
    assert.deepEqual(after.unassigned.map((u) => u.task).sort((a, b) => a - b), multiplyTasks);
    for (const u of after.unassigned) {
      assert.equal(u.component, 'multiply');
      assert.match(u.reason, /GPU component needs a GPU worker and none was available: no GPU slot was free/);
    }
    // Nothing silently dropped: every other executor runs on sup-cpu, in CPU workers.
    assert.equal(tasksOf(after), before);
    assert.ok(after.workers.length > 0 && after.workers.every((w) => w.gpu === null));
    assert.ok(after.workers.every((w) => !w.executors.some((e) => e.component === 'multiply')));
    const running = await waitFor('the CPU workers running on sup-cpu', async () => {
      const d = await cluster.describe('gpu');
      // A worker's metrics record (its epoch) is written every topology.stats.report.secs: allow several periods.
      return d.workers.every((w) => w.liveness === 'alive' && w.metrics?.epoch === d.epoch && processAlive(w.metrics.pid)) ? d : null;
    }, 60_000, 300);
    cluster.trackPids(running.workers.map((w) => w.metrics!.pid));
    const row = (await cluster.list()).find((t) => t.name === 'gpu');
    assert.equal(row?.unassigned, multiplyTasks.length, 'list shows the unassigned executors too');

    const killed = await cluster.cli(['kill', 'gpu', '--wait', '0']);
    assert.equal(killed.code, 0, killed.stderr);
  });

  it('dry-runs the same placement with `hstorm schedule --json`', async () => {
    const file = join(cluster.dir, 'cluster.json');
    const ports = (id: string) => cluster.supervisor(id).ports;
    writeFileSync(
      file,
      JSON.stringify({
        supervisors: [
          { id: 'sup-gpu', host: '127.0.0.1', ports: ports('sup-gpu'), gpus: [GTX1060, GTX970] },
          { id: 'sup-cpu', host: '127.0.0.1', ports: ports('sup-cpu'), gpus: [] },
        ],
      }),
    );
    const r = await cluster.cliJson<DryRunResult>(['schedule', GPU_TOPOLOGY, '--cluster', file, '--strategy', 'hetero', '-c', 'topology.workers=3']);
    assert.deepEqual(Object.keys(r).sort(), ['queue', 'unassigned', 'workers']);
    assert.deepEqual(r.unassigned, []);
    assert.equal(r.queue, null, 'no fairness configured: nothing queues');
    assert.equal(r.workers.length, 3);
    for (const w of r.workers) {
      assert.deepEqual(Object.keys(w).sort(), ['executors', 'gpu', 'port', 'reason', 'supervisor']);
      assert.equal(typeof w.supervisor, 'string');
      assert.equal(typeof w.port, 'number');
      assert.ok(w.gpu === null || typeof w.gpu === 'string');
      assert.ok(w.executors.length > 0);
      for (const e of w.executors) {
        assert.deepEqual(Object.keys(e).sort(), ['component', 'task']);
        assert.equal(typeof e.task, 'number');
      }
      assert.ok(w.reason.length > 0);
    }
    const gpu = r.workers.filter((w) => w.gpu !== null);
    assert.deepEqual(gpu.map((w) => w.gpu).sort(), ['gtx1060', 'gtx970']);
    assert.ok(gpu.every((w) => w.supervisor === 'sup-gpu' && w.executors.every((e) => e.component === 'multiply')));
    assert.match(gpu.find((w) => w.gpu === 'gtx970')!.reason, new RegExp(`score ${score970.toFixed(3)} `));

    // The same decision live: the cluster as nimbus sees it now (the GPU node above is gone, so a
    // fresh one joins), described in a file, against a real submission on the idle cluster.
    if (!(await cluster.supervisorList()).some((s) => s.gpus.length > 0)) await cluster.addSupervisor({ id: 'sup-gpu-2', slots: 3, gpus: [GTX1060, GTX970] });
    const live = join(cluster.dir, 'cluster-live.json');
    const supervisors = (await cluster.supervisorList()).map((s) => ({
      id: s.id,
      host: s.host,
      ports: s.ports,
      gpus: s.gpus.map((g) => ({
        id: g.id,
        name: g.name,
        smCount: g.smCount,
        coresPerSm: g.coresPerSm,
        clockMHz: g.clockMHz,
        memoryMB: g.memoryMB,
        computeCapability: g.computeCapability,
        slots: g.slots,
        source: g.source,
      })),
    }));
    writeFileSync(live, JSON.stringify({ supervisors }));
    const dry = await cluster.cliJson<DryRunResult>(['schedule', GPU_TOPOLOGY, '--cluster', live, '--strategy', 'hetero']);
    assert.equal((await cluster.list()).length, 0, 'nothing else holds slots');
    await cluster.submit(GPU_TOPOLOGY, 'gpu2', {});
    const submitted = await cluster.describe('gpu2');
    assert.deepEqual(
      placement(submitted.workers.map((w) => ({ supervisor: w.supervisor, port: w.port, gpu: w.gpu?.gpuId ?? null, tasks: w.executors.flatMap((e) => e.tasks) }))),
      placement(dry.workers.map((w) => ({ supervisor: w.supervisor, port: w.port, gpu: w.gpu, tasks: w.executors.map((e) => e.task) }))),
    );
    assert.equal(submitted.unassigned.length, dry.unassigned.length);
    const killed = await cluster.cli(['kill', 'gpu2', '--wait', '0']);
    assert.equal(killed.code, 0, killed.stderr);
  });
});
