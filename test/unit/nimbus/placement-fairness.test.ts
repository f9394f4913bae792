/**
 * Nimbus's placement round under HDRF (nimbus/placement.ts), on stored
 * records: a new topology that does not fit is queued without starting
 * anything; repeating the round writes nothing; a freed GPU is taken by the
 * waiting topology in the very round that sees it free; a running topology
 * that lost a worker keeps what still runs and queues the rest.
 */
import assert from 'node:assert/strict';
import type { Assignment } from '../../../common/assignment.js';
import { buildConfig } from '../../../common/config/index.js';
import type { SupervisorInfo } from '../../../common/resources.js';
import type { StormBase } from '../../../common/storm-base.js';
import type { ComponentDef, TopologyDef } from '../../../common/topology-def.js';
import { planPlacement, type PlacementInput } from '../../../nimbus/placement.js';

const GPU = { id: 'g0', name: 'GeForce GTX 1060', smCount: 10, coresPerSm: 128, clockMHz: 1708, memoryMB: 4096, computeCapability: '6.1', slots: 4, source: 'declared' as const, index: 0 };

function supervisor(id: string, ports: number[], gpus = [GPU]): SupervisorInfo {
  return { id, host: '127.0.0.1', ports, memoryMB: 16384, cpus: 8, gpus, startedAt: 0, heartbeatAt: 0, version: 1 };
}

function comp(id: string, inputs: string[], gpuMB: number | null): ComponentDef {
  return {
    id,
    kind: inputs.length ? 'bolt' : 'spout',
    parallelism: 1,
    streams: [{ id: 'default', fields: ['x'], direct: false }],
    inputs: inputs.map((c) => ({ component: c, stream: 'default', grouping: { type: 'shuffle' } })),
    gpu: gpuMB === null ? null : { memoryMB: gpuMB },
    config: {},
  };
}

/** spout → kernel (GPU, `gpuMB`) → sink; 2 workers of which 1 GPU worker, no ackers. */
function storm(id: string, launchTime: number, gpuMB = 3072): StormBase {
  const def: TopologyDef = { components: [comp('spout', [], null), comp('kernel', ['spout'], gpuMB), comp('sink', ['kernel'], null)], config: {} };
  const config = buildConfig([{ 'nimbus.scheduler': 'hdrf', 'topology.workers': 2, 'topology.gpu.workers': 1, 'topology.acker.executors': 0 }], { allowUserKeys: true });
  return { version: 1, id, name: id, status: 'active', launchTime, def, config: { ...config }, code: { kind: 'path', path: '/x.js' } };
}

function input(over: Partial<PlacementInput>): PlacementInput {
  return {
    supervisors: new Map([['s1', supervisor('s1', [1, 2, 3, 4, 5, 6])]]),
    storms: new Map(),
    assignments: new Map(),
    badSlots: new Set(),
    deadWorkers: new Map(),
    forced: new Set(),
    strategy: 'hdrf',
    fairness: { mode: 'hdrf', reservationTimeoutMs: 60_000 },
    gpuFallbackToCpu: false,
    now: 10_000,
    ...over,
  };
}

function apply(assignments: Map<string, Assignment>, changes: ReturnType<typeof planPlacement>): void {
  for (const c of changes) assignments.set(c.topologyId, c.assignment);
}

describe('nimbus placement with HDRF', () => {
  it('queues a topology whose GPU memory does not fit, writes nothing more while nothing changes, and admits it in the round that sees the GPU freed', () => {
    const a = storm('a', 1000);
    const b = storm('b', 2000);
    const assignments = new Map<string, Assignment>();
    const storms = new Map([
      ['a', a],
      ['b', b],
    ]);
    apply(assignments, planPlacement(input({ storms, assignments })));
    const qa = assignments.get('a')!;
    const qb = assignments.get('b')!;
    assert.equal(qa.queue, null);
    assert.equal(qa.workers.length, 2);
    assert.deepEqual(qa.workers.find((w) => w.gpu)!.resources, { cpu: 0.1, memoryMB: 128, gpuMemoryMB: 3072 });
    // 4096 − 3072 = 1024 MB left on the one GPU: b (3072 MB) waits, and starts nothing.
    assert.deepEqual(qb.workers, []);
    assert.equal(qb.scheduler, 'hdrf');
    assert.deepEqual([qb.queue!.state, qb.queue!.since, qb.queue!.blockedBy?.topology], ['waiting', 2000, 'a']);
    assert.match(qb.queue!.detail, /GPU memory \(a GPU worker needs 3072 MB, the most free on a GPU with a free slot is 1024 MB\)/);
    assert.ok(qb.unassigned.every((u) => /^HDRF: waiting 8 s: same dominant share 0\.00 as topology a/.test(u.reason)));

    // The next round sees a running, not admitted in the same round: b no longer waits behind a, it just does not fit.
    const next = planPlacement(input({ storms, assignments, now: 15_000 }));
    assert.deepEqual(next.map((c) => [c.topologyId, c.assignment.workers.length, c.assignment.queue?.blockedBy]), [['b', 0, null]]);
    apply(assignments, next);
    // Rounds after that (monitor ticks) change nothing, so they write nothing.
    assert.deepEqual(planPlacement(input({ storms, assignments, now: 15_500 })), []);
    assert.deepEqual(planPlacement(input({ storms, assignments, now: 60_000 })), []);

    // a is gone (killed and removed): the same round gives b the freed GPU.
    storms.delete('a');
    assignments.delete('a');
    const changes = planPlacement(input({ storms, assignments, now: 16_000 }));
    assert.equal(changes.length, 1);
    const nb = changes[0]!.assignment;
    assert.equal(nb.queue, null);
    assert.equal(nb.epoch, qb.epoch + 2);
    assert.deepEqual(nb.unassigned, []);
    assert.equal(nb.workers.find((w) => w.gpu)!.gpu!.gpuId, 'g0');
    assert.match(nb.workers[0]!.reason, /^HDRF: admitted: dominant share 0\.00 is the smallest whose request fits \(1 waiting; waited 14 s\)/);
  });

  it('a running topology that lost its GPU node keeps its CPU worker and queues the GPU executor', () => {
    const t = storm('t', 1000);
    const sups = new Map([
      ['s1', supervisor('s1', [1, 2])],
      ['cpu', supervisor('cpu', [7], [])],
    ]);
    const assignments = new Map<string, Assignment>();
    const storms = new Map([['t', t]]);
    apply(assignments, planPlacement(input({ supervisors: sups, storms, assignments })));
    const before = assignments.get('t')!;
    assert.equal(before.queue, null);
    const cpuWorker = before.workers.find((w) => !w.gpu)!;
    // s1 (the GPU node) dies; t's CPU worker happened to be on s1 or cpu: move it to cpu to keep the case exact.
    const moved: Assignment = { ...before, workers: before.workers.map((w) => (w === cpuWorker ? { ...w, supervisorId: 'cpu', port: 7 } : w)) };
    assignments.set('t', moved);
    sups.delete('s1');
    const changes = planPlacement(input({ supervisors: sups, storms, assignments, now: 20_000 }));
    assert.equal(changes.length, 1);
    const after = changes[0]!.assignment;
    assert.deepEqual(after.workers.map((w) => `${w.supervisorId}:${w.port}`), ['cpu:7'], 'what still runs keeps running');
    assert.deepEqual(after.unassigned.map((u) => u.component), ['kernel']);
    assert.equal(after.queue!.since, 20_000);
    assert.match(after.queue!.detail, /^can never run whole on this cluster, even empty/);
    assert.ok(after.queue!.dominantShare > 0, 'it holds its CPU worker');
  });
});
