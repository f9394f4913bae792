import assert from 'node:assert/strict';
import fc from 'fast-check';
import { packExecutors, workerCap, type PackComponent } from '../../../nimbus/scheduler/alpha.js';
import { topologicalOrder } from '../../../nimbus/scheduler/topo-order.js';
import { schedule } from '../../../nimbus/scheduler/index.js';
import type { ExecutorRef } from '../../../common/assignment.js';
import { GTX_1060, checkInvariants, gpu, sup, topo } from './fixtures.js';

/** A chain of components with the given parallelisms, tasks numbered 1.. */
function chain(pars: number[]): PackComponent[] {
  let task = 1;
  return pars.map((p, i) => ({
    id: `c${i}`,
    inputs: i ? [`c${i - 1}`] : [],
    executors: Array.from({ length: p }, () => ({ component: `c${i}`, task: task++ })),
  }));
}

/** Stream edges whose two executors sit in different workers (every upstream task talks to every downstream one). */
function crossEdges(comps: PackComponent[], where: Map<number, number>): number {
  const byId = new Map(comps.map((c) => [c.id, c]));
  let n = 0;
  for (const c of comps) {
    for (const inp of c.inputs) {
      for (const a of byId.get(inp)?.executors ?? []) for (const b of c.executors) if (where.get(a.task) !== where.get(b.task)) n++;
    }
  }
  return n;
}

function placement(workers: { executors: ExecutorRef[] }[]): Map<number, number> {
  const m = new Map<number, number>();
  workers.forEach((w, i) => w.executors.forEach((x) => m.set(x.task, i)));
  return m;
}

describe('scheduler: Algorithm 2 (executors → workers, α)', () => {
  describe('N = floor(Nmin + α (Nmax − Nmin))', () => {
    it("the paper's check: 24 executors in 6 workers give N = 4 at α = 0 and at most 8 at α = 0.2", () => {
      // Nmin = ceil(24/6) = 4, Nmax = 24 − 6 + 1 = 19.
      const a0 = workerCap(24, 6, 0);
      assert.deepEqual([a0.nMin, a0.nMax, a0.n], [4, 19, 4]);
      // α = 0.2: 4 + 0.2 × 15 = 7 exactly, so the formula gives 7; the paper's "4~8" range
      // rounds up. N reaches 8 from α = 4/15 ≈ 0.267 (4 + 4 = 8).
      assert.equal(workerCap(24, 6, 0.2).n, 7);
      assert.ok(workerCap(24, 6, 0.2).n <= 8);
      assert.equal(workerCap(24, 6, 4 / 15).n, 8);
      assert.equal(workerCap(24, 6, 1).n, 19);
    });

    it('does not lose an executor to binary rounding (0.29 × 100 = 28.999…)', () => {
      // E = 202, W = 101: Nmin = 2, Nmax = 102; 2 + 0.29 × 100 = 31, but 0.29 × 100 is 28.999999999999996 in binary.
      assert.equal(2 + 0.29 * 100 < 31, true);
      assert.equal(workerCap(202, 101, 0.29).n, 31);
    });

    it('keeps N in [Nmin, Nmax] when E < W', () => {
      const c = workerCap(3, 6, 1);
      assert.deepEqual([c.nMin, c.nMax, c.n], [1, 1, 1]);
    });
  });

  it('the sequential topology (spout → 4 GPU bolts × 6 → checker), 6 GPU workers: 4 executors each at α = 0', () => {
    const t = topo(
      'seq',
      [
        ['spout', 1, false, []],
        ['add1', 6, true, ['spout']],
        ['add2', 6, true, ['add1']],
        ['add3', 6, true, ['add2']],
        ['add4', 6, true, ['add3']],
        ['checker', 1, false, ['add4']],
      ],
      { numWorkers: 7, numGpuWorkers: 6, alpha: 0 },
    );
    const cluster = { supervisors: [0, 1, 2].map((i) => sup(`n${i}`, [6700, 6701, 6702], [gpu(`g${i}`, GTX_1060)])) };
    for (const alpha of [0, 0.2]) {
      const input = { cluster, topologies: [{ ...t, alpha }], occupied: [] };
      const r = schedule(input, 'hetero');
      checkInvariants(input, r);
      const gpuWorkers = r.assignments.get('seq')!.workers.filter((w) => w.gpu);
      assert.equal(gpuWorkers.length, 6);
      const gpuLoads = gpuWorkers.map((w) => w.executors.filter((x) => x.component.startsWith('add')).length);
      if (alpha === 0) assert.deepEqual(gpuLoads, [4, 4, 4, 4, 4, 4]);
      for (const l of gpuLoads) assert.ok(l <= workerCap(24, 6, alpha).n);
      // Each worker holds one task of every bolt: the chain follows its input's workers.
      if (alpha === 0) for (const w of gpuWorkers) assert.match(w.reason, /add2 ×1 next to input add1/);
      assert.match(gpuWorkers[0]!.reason, new RegExp(`N=${workerCap(24, 6, alpha).n} \\(α=${alpha}, E=24, W=6`));
    }
  });

  it('packs connected components together as α grows (fewer cross-worker edges)', () => {
    // E = 13, W = 4: Nmin 4, Nmax 10. At α = 0 (N = 4) the chain is spread; at α = 1 (N = 10)
    // each component follows its input until the worker is full.
    const comps = chain([1, 3, 4, 3, 2]);
    const cut = (alpha: number): number => {
      const { workers, cap, left } = packExecutors(comps, 4, alpha);
      assert.equal(left.length, 0);
      for (const w of workers) assert.ok(w.load <= cap.n);
      return crossEdges(comps, placement(workers));
    };
    assert.equal(cut(0), 24);
    assert.equal(cut(1), 8);
  });

  it('over random DAGs, the edges cut between workers decrease as α grows', () => {
    const alphas = [0, 0.1, 0.2, 0.5, 1];
    const sums = alphas.map(() => 0);
    fc.assert(
      fc.property(
        fc.array(fc.record({ par: fc.integer({ min: 1, max: 6 }), inputs: fc.array(fc.nat(), { maxLength: 2 }) }), { minLength: 2, maxLength: 7 }),
        fc.integer({ min: 2, max: 5 }),
        (spec, w) => {
          let task = 1;
          const comps: PackComponent[] = spec.map((s, i) => ({
            id: `c${i}`,
            inputs: i ? [...new Set(s.inputs.map((k) => `c${k % i}`))] : [],
            executors: Array.from({ length: s.par }, () => ({ component: `c${i}`, task: task++ })),
          }));
          if (task - 1 < w) return;
          alphas.forEach((alpha, j) => {
            sums[j]! += crossEdges(comps, placement(packExecutors(comps, w, alpha).workers));
          });
        },
      ),
      { seed: 42, numRuns: 300 },
    );
    for (let j = 1; j < sums.length; j++) assert.ok(sums[j]! < sums[j - 1]!, `cut edges by α ${alphas.join('/')}: ${sums.join(' → ')}`);
  });

  it('never puts more than N executors in a worker, and places each executor once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ par: fc.integer({ min: 1, max: 8 }), inputs: fc.array(fc.nat(), { maxLength: 3 }) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (spec, w, alpha) => {
          let task = 1;
          const comps: PackComponent[] = spec.map((s, i) => ({
            id: `c${i}`,
            // Any index, so cycles and self-loops show up too.
            inputs: s.inputs.map((k) => `c${k % spec.length}`),
            executors: Array.from({ length: s.par }, () => ({ component: `c${i}`, task: task++ })),
          }));
          const { workers, cap, left } = packExecutors(comps, w, alpha);
          assert.equal(left.length, 0);
          const tasks = workers.flatMap((x) => x.executors.map((e) => e.task)).sort((a, b) => a - b);
          assert.deepEqual(tasks, Array.from({ length: task - 1 }, (_, i) => i + 1));
          for (const x of workers) assert.ok(x.load <= cap.n, `load ${x.load} > N ${cap.n}`);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('an input attracts its consumer: spout(1) → bolt(3), W = 2, α = 1 keeps the bolt with the spout up to N', () => {
    // E = 4, W = 2: Nmin 2, Nmax 3, N = 3 → spout + 2 bolts in worker 0, the last bolt spills to the empty worker.
    const { workers } = packExecutors(chain([1, 3]), 2, 1);
    assert.deepEqual(
      workers.map((w) => w.executors.map((x) => x.task)),
      [[1, 2, 3], [4]],
    );
    assert.match(workers[0]!.describe(), /c1 ×2 next to input c0/);
    assert.match(workers[1]!.describe(), /c1 ×1 spread/);
  });

  describe('topological order', () => {
    it('puts inputs first and breaks ties by declaration order', () => {
      const order = topologicalOrder([
        { id: 'join', inputs: ['b', 'a'] },
        { id: 'b', inputs: ['spout'] },
        { id: 'spout', inputs: [] },
        { id: 'a', inputs: ['spout'] },
        { id: 'other', inputs: [] },
      ]);
      assert.deepEqual(order, ['spout', 'b', 'a', 'join', 'other']);
    });

    it('breaks a cycle at its earliest declared component, the same way every time', () => {
      const comps = [
        { id: 'x', inputs: ['z'] },
        { id: 'y', inputs: ['x'] },
        { id: 'z', inputs: ['y'] },
        { id: 's', inputs: [] },
      ];
      assert.deepEqual(topologicalOrder(comps), ['s', 'x', 'y', 'z']);
      assert.deepEqual(topologicalOrder(comps), topologicalOrder(comps));
    });

    it('ignores unknown inputs and self-loops', () => {
      assert.deepEqual(topologicalOrder([{ id: 'a', inputs: ['a', 'ghost'] }, { id: 'b', inputs: ['a'] }]), ['a', 'b']);
    });
  });
});
