import assert from 'node:assert/strict';
import { buildConfig } from '../../../common/config/index.js';
import { SchedulingError } from '../../../common/errors.js';
import type { ComponentDef, TopologyDef } from '../../../common/topology-def.js';
import type { SupervisorInfo } from '../../../common/resources.js';
import type { SupervisorSummary } from '../../../nimbus/views.js';
import { dryRun, parseClusterFile, toSchedTopology } from '../../../nimbus/dry-run.js';

function comp(id: string, parallelism: number, inputs: string[], gpu = false): ComponentDef {
  return {
    id,
    kind: inputs.length ? 'bolt' : 'spout',
    parallelism,
    streams: [{ id: 'default', fields: ['x'], direct: false }],
    inputs: inputs.map((c) => ({ component: c, stream: 'default', grouping: { type: 'shuffle' } })),
    gpu: gpu ? { memoryMB: 0 } : null,
    config: {},
  };
}

const MATMUL: TopologyDef = {
  components: [comp('spout', 2, []), comp('mm-gpu', 4, ['spout'], true), comp('mm-cpu', 2, ['spout']), comp('sink', 1, ['mm-gpu', 'mm-cpu'])],
  config: {},
};

const CLUSTER = {
  supervisors: [
    {
      id: 'gpu-node',
      host: '10.0.0.2',
      ports: [6700, 6701, 6702, 6703],
      gpus: [
        { id: 'GPU-aaaa', name: 'NVIDIA H200', smCount: 132, clockMHz: 1980, memoryMB: 143771, computeCapability: '9.0', slots: 100 },
        { id: 'old', name: 'Tesla K20', smCount: 13, coresPerSm: 192, clockMHz: 706, memoryMB: 5120, computeCapability: '3.0' },
      ],
    },
    { id: 'cpu-node', ports: [6700, 6701] },
  ],
};

const config = (over: Record<string, unknown> = {}) =>
  buildConfig([{ 'topology.workers': 4, 'topology.gpu.workers': 2, ...over }], { allowUserKeys: true });

describe('scheduler: dry run (hstorm schedule)', () => {
  it('places a topology on a described cluster and explains each worker', () => {
    const r = dryRun({ cluster: CLUSTER, topology: MATMUL, config: config(), topologyId: 'mm' });
    assert.deepEqual(r.unassigned, []);
    const gpuWorkers = r.workers.filter((w) => w.gpu);
    assert.equal(gpuWorkers.length, 2);
    // The H200 outscores the K20 (performance, β = 0.3 default) and keeps doing so after one pick.
    assert.deepEqual(gpuWorkers.map((w) => w.gpu), ['GPU-aaaa', 'GPU-aaaa']);
    for (const w of gpuWorkers) assert.deepEqual(w.executors.map((x) => x.component), ['mm-gpu', 'mm-gpu']);
    // 2 + 4 + 2 + 1 tasks + 4 ackers (one per worker by default) = 13 executors placed.
    assert.equal(r.workers.reduce((s, w) => s + w.executors.length, 0), 13);
    assert.ok(r.workers.every((w) => w.reason.length > 0));
    assert.deepEqual(Object.keys(r.workers[0]!), ['supervisor', 'port', 'gpu', 'executors', 'reason']);
  });

  it('applies the slot rules of discovery: a 3.0 GPU gets 1 slot, 100 asked on an H200 are capped at the MPS limit 48', () => {
    const cluster = parseClusterFile(CLUSTER, config());
    const gpus = cluster.supervisors[0]!.gpus;
    assert.deepEqual(gpus.map((g) => [g.id, g.slots, g.coresPerSm, g.source]), [
      ['GPU-aaaa', 48, 128, 'declared'],
      ['old', 1, 192, 'declared'],
    ]);
    assert.equal(cluster.supervisors[1]!.host, 'cpu-node');
  });

  it('follows the strategy in config or as given', () => {
    const even = dryRun({ cluster: CLUSTER, topology: MATMUL, config: config({ 'nimbus.scheduler': 'even' }) });
    assert.match(even.workers[0]!.reason, /^even:/);
    const hetero = dryRun({ cluster: CLUSTER, topology: MATMUL, config: config({ 'nimbus.scheduler': 'even' }), strategy: 'hetero' });
    assert.match(hetero.workers[0]!.reason, /^GPU worker 1\/2: Algorithm 2/);
  });

  it('names the bad field of a cluster file', () => {
    const bad = structuredClone(CLUSTER) as unknown as { supervisors: { gpus: Record<string, unknown>[] }[] };
    bad.supervisors[0]!.gpus[1]!.smCount = 'many';
    assert.throws(() => parseClusterFile(bad, config()), (e: unknown) => e instanceof SchedulingError && /supervisors\[0\]\.gpus\[1\]\.smCount/.test(e.message));
    assert.throws(() => parseClusterFile({ supervisors: [{ id: 'x', ports: [1], gpus: [], prots: [] }] }, config()), /supervisors\[0\]: Unrecognized key.*prots/);
    assert.throws(() => parseClusterFile({ supervisors: [{ id: 'x', ports: [1] }, { id: 'x', ports: [2] }] }, config()), /"x" appears twice/);
    assert.throws(() => parseClusterFile({}, config()), /supervisors/);
  });

  it('toSchedTopology: GPU flags, inputs, executors with ackers (default one per worker)', () => {
    const t = toSchedTopology('mm', MATMUL, config({ 'hstorm.scheduler.alpha': 0.2, 'hstorm.gpu.beta': 0.7 }));
    assert.deepEqual(t.components.map((c) => [c.id, c.parallelism, c.gpu, c.inputs]), [
      ['spout', 2, false, []],
      ['mm-gpu', 4, true, ['spout']],
      ['mm-cpu', 2, false, ['spout']],
      ['sink', 1, false, ['mm-gpu', 'mm-cpu']],
      ['__acker', 4, false, []],
    ]);
    assert.equal(t.executors.length, 13);
    assert.deepEqual(t.executors[12], { component: '__acker', task: 13 });
    assert.deepEqual([t.numWorkers, t.numGpuWorkers, t.alpha, t.beta], [4, 2, 0.2, 0.7]);
    const noAck = toSchedTopology('mm', MATMUL, config({ 'topology.acker.executors': 0 }));
    assert.ok(!noAck.components.some((c) => c.id === '__acker'));
  });

  describe('tells the truth about a live cluster', () => {
    const TWIN = (id: string) => ({ id, name: 'GeForce GTX 1060', smCount: 10, clockMHz: 1708, memoryMB: 8000, computeCapability: '6.1', slots: 4 });
    const ONE_GPU: TopologyDef = { components: [comp('spout', 1, []), comp('kernel', 1, ['spout'], true)], config: {} };

    it('honours nimbus.scheduler.gpu.fallback.cpu from the config, unless told otherwise', () => {
      const noGpu = { supervisors: [{ id: 'cpu', ports: [1, 2, 3] }] };
      const cfg = config({ 'topology.workers': 2, 'topology.gpu.workers': 1, 'nimbus.scheduler.gpu.fallback.cpu': true });
      const r = dryRun({ cluster: noGpu, topology: ONE_GPU, config: cfg });
      assert.deepEqual(r.unassigned, []);
      assert.ok(r.workers.some((w) => w.executors.some((x) => x.component === 'kernel') && /runs on the CPU backend/.test(w.reason)));
      const strict = dryRun({ cluster: noGpu, topology: ONE_GPU, config: cfg, gpuFallbackToCpu: false });
      assert.deepEqual(strict.unassigned.map((u) => u.component), ['kernel']);
    });

    it('counts used GPU slots: β then prefers the idle twin (spare 1.0 over 0.25)', () => {
      const cfg = config({ 'topology.workers': 2, 'topology.gpu.workers': 1 });
      const idle = { supervisors: [{ id: 'n', ports: [1, 2, 3, 4, 5, 6], gpus: [TWIN('a'), TWIN('b')] }] };
      assert.equal(dryRun({ cluster: idle, topology: ONE_GPU, config: cfg }).workers.find((w) => w.gpu)!.gpu, 'a', 'a tie goes to the first id');
      const busy = { supervisors: [{ id: 'n', ports: [1, 2, 3, 4, 5, 6], usedGpuSlots: { a: 3 }, gpus: [TWIN('a'), TWIN('b')] }] };
      const w = dryRun({ cluster: busy, topology: ONE_GPU, config: cfg }).workers.find((x) => x.gpu)!;
      assert.equal(w.gpu, 'b');
      assert.match(w.reason, /a@n 0\.475/, 'a is scored with U=3: 0.3 × 1 + 0.7 × 0.25');
      // Its ports were taken by those three GPU workers (the highest first): the new workers get 1 and 2.
      assert.deepEqual(dryRun({ cluster: busy, topology: ONE_GPU, config: cfg }).workers.map((x) => x.port).sort(), [1, 2]);
    });

    it('reads a dump of GET /supervisors and running topologies, and previews an HDRF decision', () => {
      const dump = {
        supervisors: [
          {
            id: 'n', host: '10.0.0.5', ports: [1, 2, 3, 4], usedPorts: [1, 2], slotsTotal: 4, slotsUsed: 2, memoryMB: 16000, cpus: 8, uptimeSecs: 30,
            gpus: [{ ...TWIN('a'), slots: 2, usedSlots: 1, usedMemoryMB: 6000, source: 'declared' as const, declared: true, performance: 2186240, coresPerSm: 128 }],
          },
        ],
        topologies: [{ id: 'x', workers: [{ supervisor: 'n', port: 1, gpu: { gpuId: 'a' }, resources: { cpu: 0.2, memoryMB: 256, gpuMemoryMB: 6000 } }, { supervisor: 'n', port: 2, gpu: null, resources: { cpu: 0.2, memoryMB: 256 } }] }],
      };
      const big: TopologyDef = { components: [comp('spout', 1, []), { ...comp('kernel', 1, ['spout'], true), gpu: { memoryMB: 3072 } }], config: {} };
      const cfg = (s: string) => config({ 'topology.workers': 2, 'topology.gpu.workers': 1, 'nimbus.scheduler': s });
      // 8000 − 6000 = 2000 MB left on a; the topology needs 3072. Request: spout, kernel and 2 ackers (one per worker) × (0.1 core, 128 MB).
      const hdrf = dryRun({ cluster: dump, topology: big, config: cfg('hdrf'), topologyId: 'big', now: 0 });
      assert.deepEqual(hdrf.workers, []);
      assert.equal(hdrf.queue!.state, 'waiting');
      assert.equal(
        hdrf.queue!.reason,
        'waiting 0 s: needs 2 workers (1 GPU × 3072 MB), 0.4 cores, 512 MB; short of GPU memory (a GPU worker needs 3072 MB, the most free on a GPU with a free slot is 2000 MB)',
      );
      const hetero = dryRun({ cluster: dump, topology: big, config: cfg('hetero'), topologyId: 'big' });
      assert.equal(hetero.queue, null);
      assert.deepEqual(hetero.unassigned.map((u) => u.component), ['kernel']);
      assert.match(hetero.unassigned[0]!.reason, /no GPU with a free slot has 3072 MB of GPU memory free/);
      // Without x's workers the same cluster has room: the decision follows what runs.
      const fits = dryRun({ cluster: { supervisors: [{ ...dump.supervisors[0]!, usedPorts: [], gpus: [{ ...dump.supervisors[0]!.gpus[0]!, usedSlots: 0, usedMemoryMB: 0 }] }] }, topology: big, config: cfg('hdrf'), now: 0 });
      assert.equal(fits.queue, null);
      assert.match(fits.workers[0]!.reason, /^HDRF: admitted/);
    });

    it('takes every field of GET /api/v1/supervisors and of a supervisor znode as they are, and still refuses a typo', () => {
      const gpu = { ...TWIN('a'), coresPerSm: 128, slots: 2, source: 'declared' as const };
      // Required<…>: a field added to either record later must be listed here, so the dry run is checked against it.
      const summary: Required<SupervisorSummary> = {
        id: 'n', host: '10.0.0.5', ports: [1, 2], usedPorts: [1], slotsTotal: 2, slotsUsed: 1, memoryMB: 16000, cpus: 8, uptimeSecs: 30,
        gpus: [{ ...gpu, declared: true, usedSlots: 1, usedMemoryMB: 0, performance: 1, memoryMB: 8000 }],
        logServer: { host: '10.0.0.5', port: 8000 },
      };
      const info: Required<SupervisorInfo> = {
        id: 'm', host: '10.0.0.6', ports: [1, 2], memoryMB: 16000, cpus: 8, gpus: [{ ...gpu, index: 0, pciBusId: '00000000:01:00.0' }],
        usedGpuSlots: { a: 1 }, startedAt: 1, heartbeatAt: 2, version: 1, logServer: { host: '10.0.0.6', port: 8000 },
        node: { time: 2, collectMs: 1, cpu: { cores: 8, utilisation: 0.5, load1: 1 }, memory: { totalMB: 2, usedMB: 1, availableMB: 1 }, gpus: [], workers: [], notes: [] },
        workerExits: [],
      };
      const c = parseClusterFile({ supervisors: [summary, info] }, config());
      assert.deepEqual(c.supervisors.map((x) => x.id), ['n', 'm']);
      assert.throws(() => parseClusterFile({ supervisors: [{ ...summary, prots: [3] }] }, config()), /prots/);
    });

    it('names a running worker that does not match the supervisors', () => {
      const base = { supervisors: [{ id: 'n', ports: [1, 2], gpus: [TWIN('a')] }] };
      const bad = (w: Record<string, unknown>) => () => parseClusterFile({ ...base, topologies: [{ id: 'x', workers: [w] }] }, config());
      assert.throws(bad({ supervisor: 'm', port: 1 }), /topologies\[0\]\.workers\[0\]: supervisor "m" is not among the supervisors/);
      assert.throws(bad({ supervisor: 'n', port: 9 }), /port 9 is not one of n's ports/);
      assert.throws(bad({ supervisor: 'n', port: 1, gpu: 'zz' }), /GPU "zz" is not on n/);
      assert.throws(() => dryRun({ cluster: { ...base, topologies: [{ id: 'dry-run', workers: [] }] }, topology: ONE_GPU, config: config() }), /already has the id "dry-run"/);
    });
  });
});
