/**
 * GPU memory as a resource in placement (HDRF §2.3, fine-grained sharing):
 * GPU workers of different topologies share one GPU while their declared GPU
 * memory fits and its slots last; a worker that fits no GPU is reported with
 * the reason (or runs on a CPU backend with fallback). Both strategies.
 */
import assert from 'node:assert/strict';
import { schedule, type ScheduleInput, type SchedulerStrategy } from '../../../nimbus/scheduler/index.js';
import { GTX_1060, GTX_970, checkInvariants, gpu, occupied, res, sup, topo } from './fixtures.js';

const gpuTopo = (id: string, mb: number, par = 1) => topo(id, [['kernel', par, true, [], res(0.1, 100, mb)]], { numWorkers: par, numGpuWorkers: par });

for (const strategy of ['even', 'hetero'] as SchedulerStrategy[]) {
  describe(`scheduler: GPU memory (${strategy})`, () => {
    const cluster = { supervisors: [sup('n1', [1, 2, 3, 4, 5, 6], [gpu('g0', GTX_1060, 4, 8000)])] };

    it('two topologies share one GPU while their memory fits; a third that would overflow it is told why, slots notwithstanding', () => {
      const input: ScheduleInput = { cluster, topologies: [gpuTopo('x', 3000), gpuTopo('y', 3000), gpuTopo('z', 3000)], occupied: [] };
      const r = schedule(input, strategy);
      checkInvariants(input, r);
      assert.deepEqual(r.assignments.get('x')!.workers.map((w) => w.gpu?.gpuId), ['g0']);
      assert.deepEqual(r.assignments.get('y')!.workers.map((w) => w.gpu?.gpuId), ['g0']);
      // 3000 + 3000 = 6000 of 8000 MB: 2000 left, z needs 3000; two of g0's four slots are still free.
      const z = r.assignments.get('z')!;
      assert.deepEqual(z.workers, []);
      assert.match(z.unassigned[0]!.reason, /GPU component needs a GPU worker and none was available: no GPU with a free slot has 3000 MB of GPU memory free \(0 of 1 GPU workers placed\)/);
    });

    it('counts the GPU memory of occupied workers, and falls back to a CPU backend when allowed', () => {
      const input: ScheduleInput = { cluster, topologies: [gpuTopo('z', 3000)], occupied: [occupied('n1', 1, 'g0', 'w', res(0, 0, 6000))], gpuFallbackToCpu: true };
      const r = schedule(input, strategy);
      checkInvariants(input, r);
      const z = r.assignments.get('z')!;
      assert.deepEqual(z.unassigned, []);
      assert.equal(z.workers.length, 1);
      assert.equal(z.workers[0]!.gpu, null);
      assert.equal(z.workers[0]!.resources?.gpuMemoryMB, 0, 'a GPU executor on a CPU backend holds no GPU memory');
      assert.match(z.workers[0]!.reason, /runs on the CPU backend because no GPU slot was available: no GPU with a free slot has 3000 MB/);
    });

    it('no memory declared: shared by slots alone, as before', () => {
      const input: ScheduleInput = { cluster, topologies: [gpuTopo('a', 0, 2), gpuTopo('b', 0, 2), gpuTopo('c', 0, 1)], occupied: [] };
      const r = schedule(input, strategy);
      checkInvariants(input, r);
      assert.deepEqual(r.assignments.get('c')!.unassigned.map((u) => u.component), ['kernel'], 'four slots, five GPU workers asked');
    });
  });
}

describe('scheduler: GPU memory and Algorithm 3', () => {
  it('β scoring picks among the GPUs that have the memory: the idle 970 over the better-scoring but full 1060', () => {
    const cluster = { supervisors: [sup('n1', [1, 2, 3], [gpu('g0', GTX_1060, 4, 8000), gpu('g1', GTX_970, 4, 4096)])] };
    const input: ScheduleInput = { cluster, topologies: [gpuTopo('t', 3000)], occupied: [occupied('n1', 1, 'g0', 'w', res(0, 0, 6000))] };
    const r = schedule(input, 'hetero');
    checkInvariants(input, r);
    const w = r.assignments.get('t')!.workers[0]!;
    assert.equal(w.gpu?.gpuId, 'g1');
    assert.match(w.reason, /needs 3000 MB GPU memory \(4096 of 4096 MB free before\)/);
  });

  it('largest request first: 5000 and 3000 MB workers both fit GPUs of 5000 and 3000 MB free', () => {
    const cluster = { supervisors: [sup('n1', [1, 2, 3], [gpu('g0', GTX_1060, 4, 5000), gpu('g1', GTX_1060, 4, 3000)])] };
    const t = topo('t', [['small', 1, true, [], res(0, 0, 3000)], ['large', 1, true, [], res(0, 0, 5000)]], { numWorkers: 2, numGpuWorkers: 2 });
    const input: ScheduleInput = { cluster, topologies: [t], occupied: [] };
    const r = schedule(input, 'hetero');
    checkInvariants(input, r);
    assert.deepEqual(r.assignments.get('t')!.unassigned, []);
    const by = new Map(r.assignments.get('t')!.workers.map((w) => [w.executors[0]!.component, w.gpu?.gpuId]));
    assert.deepEqual([by.get('large'), by.get('small')], ['g0', 'g1']);
  });
});
