/**
 * HDRF (seed 000, Algorithm 1) between topologies, on cases computed by hand:
 * dominant shares over cores, memory and GPU memory; the smallest share whose
 * request fits goes first; all-or-nothing admission; a reservation for a
 * topology that waited past OT. Every number in the expected reasons is
 * worked out in the comments.
 */
import assert from 'node:assert/strict';
import { schedule, dominantShare, type FairnessOptions, type ScheduleInput } from '../../../nimbus/scheduler/index.js';
import { SchedulingError } from '../../../common/errors.js';
import { GTX_1060, GTX_970, checkInvariants, gpu, occupied, res, sup, topo } from './fixtures.js';

const fair = (otSecs = 60): FairnessOptions => ({ mode: 'hdrf', reservationTimeoutMs: otSecs * 1000 });
const ports = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

function run(input: ScheduleInput) {
  const result = schedule(input, 'hdrf');
  checkInvariants(input, result);
  return result;
}

describe('scheduler: HDRF between topologies', () => {
  describe('two topologies: the smaller dominant share goes first', () => {
    // One node: 10 cores, 10000 MB, one GPU of 8000 MB with ONE slot.
    const cluster = { supervisors: [sup('n1', ports(12), [gpu('g0', GTX_1060, 1, 8000)], { cores: 10, memoryMB: 10000 })] };
    // a and b both lost their GPU worker and want one back; the one GPU slot is free.
    // a holds 2 CPU workers × 2 spouts × (1 core, 500 MB) = 4 cores, 2000 MB → shares cpu 0.4, mem 0.2 → s_a = 0.40.
    // b holds 1 CPU worker × 1 spout × (1 core, 500 MB)      = 1 core,  500 MB → shares cpu 0.1, mem 0.05 → s_b = 0.10.
    const a = topo('a', [['spout', 4, false, [], res(1, 500)], ['gpu', 1, true, ['spout'], res(0.2, 200, 4000)]], { numWorkers: 3, numGpuWorkers: 1, waitingSince: 0 });
    const b = topo('b', [['spout', 1, false, [], res(1, 500)], ['gpu', 1, true, ['spout'], res(0.2, 200, 4000)]], { numWorkers: 2, numGpuWorkers: 1, waitingSince: 5000 });
    const held = [occupied('n1', 1, null, 'a', res(2, 1000)), occupied('n1', 2, null, 'a', res(2, 1000)), occupied('n1', 3, null, 'b', res(1, 500))];
    const input: ScheduleInput = { cluster, topologies: [a, b], occupied: held, fairness: fair(), now: 10_000 };

    it('computes the dominant shares by hand: a 0.40 (cpu), b 0.10 (cpu)', () => {
      const totals = { cpu: 10, memoryMB: 10000, gpuMemoryMB: 8000 };
      assert.deepEqual(dominantShare(res(4, 2000), totals), { share: 0.4, dim: 'cpu', shares: { cpu: 0.4, memory: 0.2, 'gpu memory': 0 } });
      assert.deepEqual(dominantShare(res(1, 500), totals), { share: 0.1, dim: 'cpu', shares: { cpu: 0.1, memory: 0.05, 'gpu memory': 0 } });
    });

    it('gives the GPU slot to b although a waited longer, and says why a waits', () => {
      const r = run(input);
      const rb = r.assignments.get('b')!;
      assert.equal(rb.queue, null);
      assert.deepEqual(rb.unassigned, []);
      assert.deepEqual(rb.workers.map((w) => [w.port, w.gpu?.gpuId ?? null, w.executors.map((x) => x.component)]), [
        [3, 'g0', ['gpu']],
        [4, null, ['spout']],
      ]);
      for (const w of rb.workers) assert.match(w.reason, /^HDRF: admitted: dominant share 0\.10 is the smallest whose request fits \(2 waiting; waited 5 s\); /);
      assert.deepEqual(rb.workers[0]!.resources, res(0.2, 200, 4000));

      const ra = r.assignments.get('a')!;
      assert.deepEqual(ra.workers, [], 'nothing of a is started or moved');
      assert.equal(ra.unassigned.length, 5);
      // a's request on an empty cluster: 1 GPU worker (0.2 cores, 200 MB, 4000 MB) + 2 CPU workers of 2 spouts = 4.2 cores, 2200 MB.
      assert.deepEqual(ra.queue, {
        state: 'waiting',
        since: 0,
        reservedSince: null,
        dominantShare: 0.4,
        needs: '3 workers (1 GPU × 4000 MB), 4.2 cores, 2200 MB',
        blockedBy: { topology: 'b', why: 'share', dominantShare: 0.1 },
        detail: 'short of GPU slots (needs 1, 0 free with a port beside them)',
      });
      assert.equal(
        ra.unassigned[0]!.reason,
        "HDRF: waiting 10 s: dominant share 0.40 > topology b's 0.10, which went first; needs 3 workers (1 GPU × 4000 MB), 4.2 cores, 2200 MB; short of GPU slots (needs 1, 0 free with a port beside them)",
      );
    });

    it('in submission order (no fairness) a, first in line, takes the GPU instead', () => {
      const r = schedule({ cluster, topologies: [a, b], occupied: [] }, 'hetero');
      assert.ok(r.assignments.get('a')!.workers.some((w) => w.gpu?.gpuId === 'g0'));
      assert.deepEqual(r.assignments.get('b')!.unassigned.map((u) => u.component), ['gpu']);
    });

    it('is pure: the same input gives the same output, and the clock is an input', () => {
      assert.deepEqual(run(structuredClone(input)), run(input));
      assert.throws(() => schedule({ ...input, now: undefined }, 'hdrf'), (e: unknown) => e instanceof SchedulingError && /input\.now/.test(e.message));
      assert.throws(() => schedule({ ...input, fairness: null }, 'hdrf'), /needs input\.fairness/);
    });
  });

  describe('three topologies: CPU-heavy against GPU-heavy', () => {
    // One node: 8 cores, 16000 MB, one GPU of 8000 MB with 4 slots.
    const cluster = { supervisors: [sup('n1', ports(10), [gpu('g0', GTX_1060, 4, 8000)], { cores: 8, memoryMB: 16000 })] };
    // c (CPU-heavy) holds 2 of its 3 workers: 2 × (1.2 cores, 600 MB) = 2.4 cores (0.30), 1200 MB (0.075)      → s_c = 0.30 on cpu.
    // g (GPU-heavy) holds 1 of its 2 GPU workers: (0.25 cores, 250 MB, 4000 MB) → GPU memory 4000/8000 = 0.50 → s_g = 0.50 on GPU memory.
    // n is new: s_n = 0. It wants one GPU worker of 2000 MB.
    const c = topo('c', [['spout', 3, false, [], res(1.2, 600)]], { numWorkers: 3, waitingSince: 0 });
    const g = topo('g', [['kernel', 2, true, [], res(0.25, 250, 4000)]], { numWorkers: 2, numGpuWorkers: 2, waitingSince: 0 });
    const n = topo('n', [['kernel', 1, true, [], res(0.1, 100, 2000)]], { numWorkers: 1, numGpuWorkers: 1, waitingSince: 2000 });
    const held = [occupied('n1', 1, null, 'c', res(1.2, 600)), occupied('n1', 2, null, 'c', res(1.2, 600)), occupied('n1', 3, 'g0', 'g', res(0.25, 250, 4000))];
    const input: ScheduleInput = { cluster, topologies: [c, g, n], occupied: held, fairness: fair(), now: 10_000 };

    it('dominant resources differ: cpu for c, GPU memory for g', () => {
      const totals = { cpu: 8, memoryMB: 16000, gpuMemoryMB: 8000 };
      assert.deepEqual([dominantShare(res(2.4, 1200), totals).share, dominantShare(res(2.4, 1200), totals).dim], [0.3, 'cpu']);
      assert.deepEqual([dominantShare(res(0.25, 250, 4000), totals).share, dominantShare(res(0.25, 250, 4000), totals).dim], [0.5, 'gpu memory']);
    });

    it('admits n (0), then c (0.30); g (0.50) waits: what is left of the GPU is 6000 MB, it needs 2 × 4000', () => {
      const r = run(input);
      assert.equal(r.assignments.get('n')!.queue, null);
      assert.equal(r.assignments.get('c')!.queue, null);
      assert.deepEqual(r.assignments.get('c')!.workers.map((w) => w.executors.length), [1, 1, 1]);
      // n took 2000 MB of g0 (g's own 4000 MB are released for its trial): 8000 − 2000 = 6000 < 2 × 4000.
      assert.deepEqual(r.assignments.get('n')!.workers.map((w) => [w.gpu?.gpuId, w.resources?.gpuMemoryMB]), [['g0', 2000]]);
      const q = r.assignments.get('g')!.queue!;
      assert.deepEqual([q.dominantShare, q.blockedBy], [0.5, { topology: 'c', why: 'share', dominantShare: 0.3 }]);
      assert.equal(q.needs, '2 workers (2 GPU × 4000 MB), 0.5 cores, 500 MB');
      assert.equal(q.detail, 'short of GPU memory (needs 8000 MB in all, 6000 MB free on GPUs with a free slot)');
      assert.match(r.assignments.get('g')!.unassigned[0]!.reason, /^HDRF: waiting 10 s: dominant share 0\.50 > topology c's 0\.30, which went first; /);
    });
  });

  describe('a topology waiting past OT gets a reservation', () => {
    // One node, two GPUs of 4096 MB and 2 slots each. r (running) holds 2048 MB on each.
    const cluster = { supervisors: [sup('n1', ports(8), [gpu('g0', GTX_1060, 2, 4096), gpu('g1', GTX_970, 2, 4096)], { cores: 8, memoryMB: 8000 })] };
    const r0 = [occupied('n1', 1, 'g0', 'r', res(0.1, 100, 2048)), occupied('n1', 2, 'g1', 'r', res(0.1, 100, 2048))];
    const big = topo('big', [['kernel', 2, true, [], res(0.1, 128, 4096)]], { numWorkers: 2, numGpuWorkers: 2, waitingSince: 0 });
    const small = topo('small', [['kernel', 1, true, [], res(0.1, 128, 1024)]], { numWorkers: 1, numGpuWorkers: 1, waitingSince: 30_000 });

    it('before OT, small fits and goes; big waits for 4096 MB on one GPU', () => {
      const r = run({ cluster, topologies: [big, small], occupied: r0, fairness: fair(60), now: 50_000 });
      assert.equal(r.assignments.get('small')!.queue, null);
      const q = r.assignments.get('big')!.queue!;
      assert.deepEqual([q.state, q.reservedSince, q.blockedBy], ['waiting', null, null]);
      assert.equal(q.detail, 'short of GPU memory (a GPU worker needs 4096 MB, the most free on a GPU with a free slot is 2048 MB)');
    });

    it('after OT (waited 72 s > 60 s) big holds a reservation: small, which fits, waits behind it', () => {
      const r = run({ cluster, topologies: [big, small], occupied: r0, fairness: fair(60), now: 72_000 });
      const rb = r.assignments.get('big')!;
      assert.deepEqual([rb.queue!.state, rb.queue!.reservedSince], ['reserved', 60_000]);
      // It holds both GPUs (it needs two GPU workers): nobody adds a worker to them while r's drain.
      assert.equal(
        rb.unassigned[0]!.reason,
        'HDRF: reserved since 12 s: needs 2 workers (2 GPU × 4096 MB), 0.2 cores, 256 MB; short of GPU memory (a GPU worker needs 4096 MB, the most free on a GPU with a free slot is 2048 MB); holding GPU g0@n1 (2048 MB free), GPU g1@n1 (2048 MB free) for it',
      );
      const rs = r.assignments.get('small')!;
      assert.deepEqual(rs.workers, []);
      assert.deepEqual(rs.queue!.blockedBy, { topology: 'big', why: 'reservation', dominantShare: 0 });
      assert.equal(
        rs.unassigned[0]!.reason,
        "HDRF: waiting 42 s: free resources are held for topology big's reservation; needs 1 worker (1 GPU × 1024 MB), 0.1 cores, 128 MB; the GPUs it would need are held for the reservation (GPU g0@n1 (2048 MB free), GPU g1@n1 (2048 MB free))",
      );
    });

    it('others backfill with what the reservation does not hold: a GPU it does not hold, and ports and cores it is not short of', () => {
      // A third GPU, idle: big holds the two with most free memory (g2 4096, then g0 2048 by id), small fits on g1.
      const three = { supervisors: [sup('n1', ports(8), [gpu('g0', GTX_1060, 2, 4096), gpu('g1', GTX_970, 2, 4096), gpu('g2', GTX_970, 2, 4096)], { cores: 8, memoryMB: 8000 })] };
      const cpuOnly = topo('cpu', [['spout', 2, false, [], res(0.5, 256)]], { numWorkers: 2, waitingSince: 40_000 });
      const r = run({ cluster: three, topologies: [big, small, cpuOnly], occupied: r0, fairness: fair(60), now: 72_000 });
      assert.match(r.assignments.get('big')!.queue!.detail, /holding GPU g2@n1 \(4096 MB free\), GPU g0@n1 \(2048 MB free\) for it$/);
      const rs = r.assignments.get('small')!;
      assert.equal(rs.queue, null);
      assert.deepEqual(rs.workers.map((w) => w.gpu?.gpuId), ['g1']);
      assert.match(rs.workers[0]!.reason, /^HDRF: admitted beside topology big's reservation, taking none of what it holds \(GPU g2@n1 \(4096 MB free\), GPU g0@n1 \(2048 MB free\)\)/);
      assert.equal(r.assignments.get('cpu')!.queue, null);
    });

    it('when r frees its GPUs, big is admitted on its reservation first, and small waits for what big left', () => {
      const r = run({ cluster, topologies: [big, small], occupied: [], fairness: fair(60), now: 80_000 });
      const rb = r.assignments.get('big')!;
      assert.equal(rb.queue, null);
      assert.deepEqual(rb.workers.map((w) => w.gpu?.gpuId).sort(), ['g0', 'g1']);
      assert.match(rb.workers[0]!.reason, /^HDRF: admitted on its reservation \(waited 80 s, OT 60 s\); /);
      const q = r.assignments.get('small')!.queue!;
      assert.deepEqual(q.blockedBy, { topology: 'big', why: 'share', dominantShare: 0 });
      assert.match(r.assignments.get('small')!.unassigned[0]!.reason, /same dominant share 0\.00 as topology big, which was ahead in the queue and went first/);
    });
  });

  describe('all-or-nothing', () => {
    it('a topology that does not fit whole starts nothing (hetero alone would start it on fewer workers)', () => {
      const cluster = { supervisors: [sup('n1', [1, 2, 3])] };
      const t = topo('t', [['a', 1, false, []], ['b', 1, false, ['a']], ['c', 1, false, ['b']]], { numWorkers: 3 });
      const held = [occupied('n1', 1, null, 'other')];
      const fairR = run({ cluster, topologies: [t], occupied: held, fairness: fair(), now: 0 });
      assert.deepEqual(fairR.assignments.get('t')!.workers, []);
      assert.equal(fairR.assignments.get('t')!.queue!.detail, 'short of ports (needs 3, 2 free)');
      const partial = schedule({ cluster, topologies: [t], occupied: held }, 'hetero').assignments.get('t')!;
      assert.equal(partial.workers.length, 2);
      assert.match(partial.workers[0]!.reason, /2 CPU workers instead of 3: only 2 free ports/);
    });

    it('a topology that can never run whole waits with that reason, gets no reservation, and blocks nobody', () => {
      const cluster = { supervisors: [sup('n1', ports(4), [gpu('g0', GTX_1060, 4, 8000)])] };
      const huge = topo('huge', [['kernel', 1, true, [], res(0.1, 100, 16000)]], { numWorkers: 1, numGpuWorkers: 1, waitingSince: 0 });
      const ok = topo('ok', [['kernel', 1, true, [], res(0.1, 100, 1000)]], { numWorkers: 1, numGpuWorkers: 1, waitingSince: 1000 });
      const r = run({ cluster, topologies: [huge, ok], occupied: [], fairness: fair(60), now: 600_000 });
      assert.equal(r.assignments.get('ok')!.queue, null);
      const q = r.assignments.get('huge')!.queue!;
      assert.equal(q.state, 'waiting');
      assert.match(q.detail, /^can never run whole on this cluster, even empty: 1 executor\(s\) would be left out \(kernel\[1\]: .*no GPU with a free slot has 16000 MB of GPU memory free/);
    });

    it('states the whole request of a topology that can never run, not only the part that could be placed', () => {
      // No GPU anywhere: the empty-cluster placement holds only the spout's CPU worker (1 worker, 0.1 cores, 128 MB).
      const cluster = { supervisors: [sup('n1', ports(4)), sup('n2', ports(4))] };
      const t = topo('t', [['reader', 1, false, [], res(0.1, 128)], ['gpu-dealer', 2, true, ['reader'], res(0.1, 128, 5000)]], { numWorkers: 2, numGpuWorkers: 1, waitingSince: 0 });
      const q = run({ cluster, topologies: [t], occupied: [], fairness: fair(), now: 0 }).assignments.get('t')!.queue!;
      assert.match(q.detail, /^can never run whole on this cluster, even empty/);
      // 2 workers, both GPU executors (2 × 5000 MB) in the one GPU worker, 3 executors × (0.1 cores, 128 MB).
      assert.equal(q.needs, '2 workers (1 GPU × 10000 MB (2 executors × 5000 MB)), 0.3 cores, 384 MB', 'GPU memory is per executor, summed per worker');
    });

    it('cores and memory are admitted against what the cluster has free (A − R)', () => {
      const cluster = { supervisors: [sup('n1', ports(4), [], { cores: 2, memoryMB: 4000 })] };
      const busy = [occupied('n1', 1, null, 'x', res(1.5, 500))];
      const t = topo('t', [['spout', 1, false, [], res(1, 100)]], { numWorkers: 1 });
      const r = run({ cluster, topologies: [t], occupied: busy, fairness: fair(), now: 0 });
      assert.equal(r.assignments.get('t')!.queue!.detail, 'short of cores (needs 1, 0.5 free)');
      const greedy = topo('greedy', [['spout', 3, false, [], res(1, 100)]], { numWorkers: 1 });
      const never = run({ cluster, topologies: [greedy], occupied: [], fairness: fair(), now: 0 });
      assert.equal(never.assignments.get('greedy')!.queue!.detail, 'can never run whole on this cluster: it asks 3 cores, the cluster offers 2');
    });
  });

  it('layers over even placement too (nimbus.scheduler=even, fairness=hdrf)', () => {
    const cluster = { supervisors: [sup('n1', ports(2)), sup('n2', ports(2))] };
    const t = topo('t', [['a', 2, false, []]], { numWorkers: 2 });
    const r = schedule({ cluster, topologies: [t], occupied: [], fairness: fair(), now: 0 }, 'even');
    assert.match(r.assignments.get('t')!.workers[0]!.reason, /^HDRF: admitted: .*; even: CPU worker 1 of 2/);
  });
});
