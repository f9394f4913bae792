import assert from 'node:assert/strict';
import { schedule, type ScheduleInput } from '../../../nimbus/scheduler/index.js';
import { SchedulingError } from '../../../common/errors.js';
import { GTX_1060, GTX_970, checkInvariants, gpu, occupied, sup, topo } from './fixtures.js';

function run(input: ScheduleInput) {
  const r = schedule(input, 'hetero');
  checkInvariants(input, r);
  return r;
}

describe('scheduler: hetero (H-Storm Algorithm 1)', () => {
  it('fills the room left under N in GPU workers with CPU executors before using CPU workers', () => {
    // 5 GPU executors in 2 GPU workers: N = ceil(5/2) = 3 at α = 0, loads 3 and 2 → one free place.
    const cluster = { supervisors: [sup('g', [1, 2, 3], [gpu('gpu0', GTX_1060)]), sup('c', [1, 2])] };
    const t = topo('t', [['spout', 1, false, []], ['k', 5, true, ['spout']], ['sink', 2, false, ['k']]], {
      numWorkers: 3,
      numGpuWorkers: 2,
    });
    const r = run({ cluster, topologies: [t], occupied: [] });
    const ws = r.assignments.get('t')!.workers;
    const gpuWs = ws.filter((w) => w.gpu);
    assert.deepEqual(gpuWs.map((w) => w.executors.length), [3, 3]);
    // The spout, first in topological order, takes that free place.
    assert.ok(gpuWs.some((w) => w.executors.some((x) => x.component === 'spout')));
    const cpuWs = ws.filter((w) => !w.gpu);
    assert.equal(cpuWs.length, 1);
    assert.deepEqual(cpuWs[0]!.executors.map((x) => x.component), ['sink', 'sink']);
    assert.match(gpuWs[0]!.reason, /N=3 \(α=0, E=5, W=2/);
  });

  it('places GPU workers of every topology before any CPU worker (Algorithm 1, line 10)', () => {
    // One GPU node with 2 ports. t1 (first) wants 2 CPU workers; t2 wants a GPU worker.
    // Interleaving t1's CPU workers first would take both ports of "a" (a:1, b:1 … a sorts first).
    const cluster = { supervisors: [sup('a', [1, 2], [gpu('gpu0', GTX_1060)]), sup('b', [1])] };
    const t1 = topo('t1', [['s', 2, false, []]], { numWorkers: 2 });
    const t2 = topo('t2', [['k', 1, true, []]], { numWorkers: 1, numGpuWorkers: 1 });
    const r = run({ cluster, topologies: [t1, t2], occupied: [] });
    assert.equal(r.assignments.get('t2')!.workers[0]!.gpu?.gpuId, 'gpu0');
    assert.equal(r.assignments.get('t1')!.workers.length, 2);
  });

  it('with fewer GPU slots than GPU workers, uses what exists and says so', () => {
    const cluster = { supervisors: [sup('a', [1, 2, 3], [gpu('gpu0', GTX_970, 1)])] };
    const t = topo('t', [['k', 4, true, []]], { numWorkers: 3, numGpuWorkers: 3 });
    const r = run({ cluster, topologies: [t], occupied: [] });
    const a = r.assignments.get('t')!;
    assert.equal(a.workers.length, 1);
    assert.equal(a.workers[0]!.executors.length, 4);
    assert.match(a.workers[0]!.reason, /1 GPU workers instead of 3: only 1 GPU slots were free/);
  });

  it('workers not used as GPU workers (too few GPU executors) run as CPU workers', () => {
    const cluster = { supervisors: [sup('a', [1, 2, 3], [gpu('gpu0', GTX_1060)])] };
    const t = topo('t', [['s', 4, false, []], ['k', 1, true, ['s']]], { numWorkers: 3, numGpuWorkers: 3 });
    for (const strategy of ['even', 'hetero'] as const) {
      const input = { cluster, topologies: [t], occupied: [] };
      const r = schedule(input, strategy);
      checkInvariants(input, r);
      const ws = r.assignments.get('t')!.workers;
      assert.deepEqual([ws.filter((w) => w.gpu).length, ws.filter((w) => !w.gpu).length], [1, 2], strategy);
      assert.match(ws[0]!.reason, /1 GPU workers instead of 3: only 1 GPU executors/);
    }
  });

  it('GPU executors with numGpuWorkers = 0: unassigned with why, or CPU backend with fallback', () => {
    const cluster = { supervisors: [sup('a', [1, 2], [gpu('gpu0', GTX_1060)])] };
    const t = topo('t', [['s', 1, false, []], ['k', 2, true, ['s']]], { numWorkers: 2, numGpuWorkers: 0 });
    const strict = run({ cluster, topologies: [t], occupied: [] }).assignments.get('t')!;
    assert.deepEqual(strict.unassigned.map((u) => u.component), ['k', 'k']);
    assert.match(strict.unassigned[0]!.reason, /topology\.gpu\.workers is 0/);
    assert.equal(strict.workers.length, 1);

    const fb = run({ cluster, topologies: [t], occupied: [], gpuFallbackToCpu: true }).assignments.get('t')!;
    assert.equal(fb.unassigned.length, 0);
    assert.ok(fb.workers.every((w) => w.gpu === null));
    assert.ok(fb.workers.some((w) => /k ×\d .*runs on the CPU backend because no GPU slot was available/.test(w.reason)));
  });

  it('all workers are GPU workers: CPU executors share them, above the GPU-phase N', () => {
    const cluster = { supervisors: [sup('a', [1, 2, 3], [gpu('gpu0', GTX_1060)])] };
    const t = topo('t', [['s', 2, false, []], ['k', 2, true, ['s']]], { numWorkers: 2, numGpuWorkers: 2, ackers: 2 });
    const r = run({ cluster, topologies: [t], occupied: [] });
    const ws = r.assignments.get('t')!.workers;
    assert.equal(ws.length, 2);
    assert.deepEqual(ws.map((w) => w.executors.length), [3, 3]);
    assert.match(ws[0]!.reason, /all GPU workers: CPU executors share the GPU workers, cap raised to N=3/);
  });

  it('no slot at all: every executor unassigned with why', () => {
    const cluster = { supervisors: [sup('a', [1], [gpu('gpu0', GTX_1060)])] };
    const t = topo('t', [['s', 1, false, []], ['k', 1, true, ['s']]], { numWorkers: 2, numGpuWorkers: 1 });
    const a = run({ cluster, topologies: [t], occupied: [occupied('a', 1, 'gpu0')] }).assignments.get('t')!;
    assert.equal(a.workers.length, 0);
    assert.equal(a.unassigned.length, 2);
    assert.match(a.unassigned.find((u) => u.component === 's')!.reason, /no free port/);
  });

  it('a large α packs executors into fewer workers than W, and the spare workers take no slot', () => {
    const cluster = { supervisors: [sup('a', [1, 2, 3, 4])] };
    // Chain of 6 single tasks, W = 3, α = 1: N = 4 → the first 4 follow each other into worker 1, the next 2 into worker 2.
    const comps: [string, number, boolean, string[]][] = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'].map((id, i) => [id, 1, false, i ? [`c${i - 1}`] : []]);
    const a = run({ cluster, topologies: [topo('t', comps, { numWorkers: 3, alpha: 1 })], occupied: [] }).assignments.get('t')!;
    assert.deepEqual(a.workers.map((w) => w.executors.length), [4, 2]);
    assert.match(a.workers[0]!.reason, /packed the CPU executors into 2 of 3 CPU workers/);
  });

  it('GPU bindings carry id, name, index and source', () => {
    const g = { ...gpu('GPU-1234', GTX_1060), index: 2, source: 'nvidia-smi' as const };
    const cluster = { supervisors: [sup('a', [1], [g])] };
    const t = topo('t', [['k', 1, true, []]], { numWorkers: 1, numGpuWorkers: 1 });
    const w = run({ cluster, topologies: [t], occupied: [] }).assignments.get('t')!.workers[0]!;
    assert.deepEqual(w.gpu, { gpuId: 'GPU-1234', name: 'GeForce GTX 1060', index: 2, source: 'nvidia-smi' });
  });

  it('rejects inputs it cannot work with, naming what is wrong', () => {
    const cluster = { supervisors: [sup('a', [1]), sup('a', [2])] };
    assert.throws(() => schedule({ cluster, topologies: [], occupied: [] }, 'hetero'), SchedulingError);
    const bad = topo('t', [['s', 1, false, []]], { numWorkers: 1, numGpuWorkers: 2 });
    assert.throws(
      () => schedule({ cluster: { supervisors: [] }, topologies: [bad], occupied: [] }, 'hetero'),
      /numGpuWorkers must be an integer in \[0, numWorkers=1\]/,
    );
    assert.throws(
      () => schedule({ cluster: { supervisors: [] }, topologies: [{ ...bad, numGpuWorkers: 0, alpha: 2 }], occupied: [] }, 'even'),
      /alpha must be in \[0, 1\]/,
    );
  });
});
