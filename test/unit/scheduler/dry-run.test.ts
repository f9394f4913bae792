import assert from 'node:assert/strict';
import { buildConfig } from '../../../common/config/index.js';
import { SchedulingError } from '../../../common/errors.js';
import type { ComponentDef, TopologyDef } from '../../../common/topology-def.js';
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
});
