import assert from 'node:assert/strict';
import { schedule } from '../../../nimbus/scheduler/index.js';
import { Interleave } from '../../../nimbus/scheduler/interleave.js';
import { GTX_1060, checkInvariants, gpu, occupied, sup, topo } from './fixtures.js';

describe('scheduler: even (Storm EvenScheduler)', () => {
  it('takes free slots interleaved across nodes sorted by id: n1-s1, n2-s1, n3-s1, n1-s2, …', () => {
    const cluster = { supervisors: [sup('n3', [6700]), sup('n1', [6701, 6700, 6702]), sup('n2', [6700, 6701])] };
    const t = topo('t', [['s', 6, false, []]], { numWorkers: 6 });
    const input = { cluster, topologies: [t], occupied: [] };
    const r = schedule(input, 'even');
    checkInvariants(input, r);
    assert.deepEqual(
      r.assignments.get('t')!.workers.map((w) => `${w.supervisorId}:${w.port}`),
      ['n1:6700', 'n2:6700', 'n3:6700', 'n1:6701', 'n2:6701', 'n1:6702'],
    );
  });

  it('deals executors round-robin in task order', () => {
    const cluster = { supervisors: [sup('a', [1, 2]), sup('b', [1, 2])] };
    const t = topo('t', [['s', 2, false, []], ['b', 5, false, ['s']]], { numWorkers: 3 });
    const r = schedule({ cluster, topologies: [t], occupied: [] }, 'even');
    assert.deepEqual(
      r.assignments.get('t')!.workers.map((w) => w.executors.map((x) => x.task)),
      [[1, 4, 7], [2, 5], [3, 6]],
    );
  });

  it('skips occupied slots and lets the next topology continue the interleaving', () => {
    const cluster = { supervisors: [sup('a', [1, 2]), sup('b', [1, 2])] };
    const t1 = topo('t1', [['s', 1, false, []]], { numWorkers: 1 });
    const t2 = topo('t2', [['s', 2, false, []]], { numWorkers: 2 });
    const input = { cluster, topologies: [t1, t2], occupied: [occupied('a', 1)] };
    const r = schedule(input, 'even');
    checkInvariants(input, r);
    // Free before t1: a:2, b:1, b:2 → interleaved a:2, b:1, b:2. t1 takes a:2; t2 then b:1, b:2.
    assert.deepEqual(r.assignments.get('t1')!.workers.map((w) => `${w.supervisorId}:${w.port}`), ['a:2']);
    assert.deepEqual(r.assignments.get('t2')!.workers.map((w) => `${w.supervisorId}:${w.port}`), ['b:1', 'b:2']);
  });

  it('uses the slots that exist when there are fewer than W, and says so', () => {
    const cluster = { supervisors: [sup('a', [1])] };
    const t = topo('t', [['s', 4, false, []]], { numWorkers: 3 });
    const input = { cluster, topologies: [t], occupied: [] };
    const r = schedule(input, 'even');
    checkInvariants(input, r);
    const ws = r.assignments.get('t')!.workers;
    assert.equal(ws.length, 1);
    assert.equal(ws[0]!.executors.length, 4);
    assert.match(ws[0]!.reason, /1 CPU workers instead of 3: only 1 free slots/);
  });

  it('reports every executor unassigned, with why, when no slot is free', () => {
    const cluster = { supervisors: [sup('a', [1])] };
    const input = { cluster, topologies: [topo('t', [['s', 2, false, []]])], occupied: [occupied('a', 1)] };
    const r = schedule(input, 'even');
    checkInvariants(input, r);
    const a = r.assignments.get('t')!;
    assert.equal(a.workers.length, 0);
    assert.deepEqual(a.unassigned.map((u) => u.task), [1, 2]);
    assert.match(a.unassigned[0]!.reason, /no free slot/);
  });

  it('GPU components: the first numGpuWorkers workers take GPU slots interleaved, first GPU with a free slot', () => {
    const cluster = {
      supervisors: [
        sup('n1', [1, 2, 3], [gpu('g1a', GTX_1060, 1), gpu('g1b', GTX_1060, 2)]),
        sup('n2', [1, 2], [gpu('g2', GTX_1060, 2)]),
        sup('n3', [1, 2]),
      ],
    };
    const t = topo('t', [['spout', 2, false, []], ['k', 3, true, ['spout']]], { numWorkers: 5, numGpuWorkers: 3 });
    const input = { cluster, topologies: [t], occupied: [] };
    const r = schedule(input, 'even');
    checkInvariants(input, r);
    const ws = r.assignments.get('t')!.workers;
    // GPU slots interleaved over GPU nodes n1, n2: n1 (g1a), n2 (g2), n1 again (g1a is full → g1b).
    assert.deepEqual(ws.filter((w) => w.gpu).map((w) => `${w.supervisorId}:${w.port}/${w.gpu!.gpuId}`), ['n1:1/g1a', 'n2:1/g2', 'n1:2/g1b']);
    // The CPU executors (spout ×2) go to 2 CPU workers on the remaining interleaved slots: n1:3, n2:2 (n3:1 is third).
    assert.deepEqual(ws.filter((w) => !w.gpu).map((w) => `${w.supervisorId}:${w.port}`), ['n1:3', 'n2:2']);
    for (const w of ws.filter((x) => x.gpu)) assert.deepEqual(w.executors.map((x) => x.component), ['k']);
  });

  it('GPU executors without GPU workers: unassigned with why, or on the CPU backend with fallback', () => {
    const cluster = { supervisors: [sup('n1', [1, 2])] };
    const t = topo('t', [['spout', 1, false, []], ['k', 2, true, ['spout']]], { numWorkers: 2, numGpuWorkers: 1 });
    const strict = schedule({ cluster, topologies: [t], occupied: [] }, 'even').assignments.get('t')!;
    assert.deepEqual(strict.unassigned.map((u) => u.task), [2, 3]);
    assert.match(strict.unassigned[0]!.reason, /GPU component needs a GPU worker.*no GPU slot was free/);
    const input = { cluster, topologies: [t], occupied: [], gpuFallbackToCpu: true };
    const r = schedule(input, 'even');
    checkInvariants(input, r);
    const a = r.assignments.get('t')!;
    assert.equal(a.unassigned.length, 0);
    assert.equal(a.workers.length, 2);
    assert.ok(a.workers.some((w) => /k runs on the CPU backend because no GPU slot was available/.test(w.reason)));
  });

  describe('Interleave index', () => {
    it('lists slots round by round and forgets taken ones', () => {
      const il = new Interleave([2, 0, 3, 1]);
      const fmt = (k: number): string[] => il.first(k).map((s) => `${s.node}.${s.round}`);
      assert.deepEqual(fmt(10), ['0.0', '2.0', '3.0', '0.1', '2.1', '2.2']);
      il.setCap(2, 1);
      il.setCap(0, 0);
      assert.deepEqual(fmt(10), ['2.0', '3.0']);
      assert.deepEqual(fmt(1), ['2.0']);
    });
  });
});
