import assert from 'node:assert/strict';
import { gpuScore, schedule } from '../../../nimbus/scheduler/index.js';
import { GTX_1060, GTX_970, checkInvariants, gpu, sup, topo } from './fixtures.js';
import type { SchedSupervisor } from '../../../nimbus/scheduler/index.js';

/*
 * Performance (formula 8), by hand:
 *   GTX 1060: 10 SMs × 128 cores × 1708 MHz = 2 186 240
 *   GTX 970:  13 SMs × 128 cores × 1253 MHz = 2 084 992
 * normalised by the cluster's largest (the 1060):
 *   perf(1060) = 1,  perf(970) = 2 084 992 / 2 186 240 = 0.953689 (to 6 places)
 * spare = (A − U) / A with A = 4 slots: 1, 0.75, 0.5, 0.25 as U goes 0..3.
 */
const PERF_970 = 2084992 / 2186240;

/** One GPU component with n tasks, n GPU workers: worker i is Algorithm 3's i-th pick. */
function picks(supervisors: SchedSupervisor[], n: number, beta: number): string[] {
  const t = topo('t', [['gpu-bolt', n, true, []]], { numWorkers: n, numGpuWorkers: n, beta });
  const input = { cluster: { supervisors }, topologies: [t], occupied: [] };
  const r = schedule(input, 'hetero');
  checkInvariants(input, r);
  return r.assignments.get('t')!.workers.map((w) => w.gpu!.gpuId);
}

// The 970 sits on node "a" so that a tie (same score) goes to it by node id.
const mixed = (): SchedSupervisor[] => [
  sup('a', [1, 2, 3, 4, 5, 6, 7, 8], [gpu('gtx970', GTX_970)]),
  sup('b', [1, 2, 3, 4, 5, 6, 7, 8], [gpu('gtx1060', GTX_1060)]),
];

describe('scheduler: Algorithm 3 (GPU workers → GPU slots, β)', () => {
  it('normalises performance by the cluster maximum', () => {
    assert.equal(gpuScore(1, PERF_970, 4, 0).toFixed(6), '0.953689');
  });

  it('β = 0 looks only at idleness: alternates, ties to the lower node id', () => {
    // pick 1: 970 1.00 = 1060 1.00 → tie → node a (970); 970 drops to 0.75
    // pick 2: 1060 1.00 > 970 0.75 → 1060; 1060 drops to 0.75
    // pick 3: tie at 0.75 → 970; pick 4: 1060 (0.75 > 0.50); pick 5: tie at 0.50 → 970; pick 6: 1060
    assert.deepEqual(picks(mixed(), 6, 0), ['gtx970', 'gtx1060', 'gtx970', 'gtx1060', 'gtx970', 'gtx1060']);
  });

  it('β = 1 looks only at performance: the 1060 until it is full, then the 970', () => {
    // 1060 scores 1 whatever its U; 970 scores 0.953689. After 4 picks the 1060 has no slot left.
    assert.deepEqual(picks(mixed(), 6, 1), ['gtx1060', 'gtx1060', 'gtx1060', 'gtx1060', 'gtx970', 'gtx970']);
  });

  it('β = 0.5 re-scores after each pick', () => {
    // score = 0.5 × perf + 0.5 × spare
    // pick 1: 1060 0.5 + 0.5×1    = 1.000000  vs 970 0.476844 + 0.5×1 = 0.976844 → 1060 (now 0.875000)
    // pick 2: 970 0.976844 vs 1060 0.875000                                    → 970  (now 0.851844)
    // pick 3: 1060 0.875000 vs 970 0.851844                                    → 1060 (now 0.750000)
    // pick 4: 970 0.851844 vs 1060 0.750000                                    → 970  (now 0.726844)
    // pick 5: 1060 0.750000 vs 970 0.726844                                    → 1060 (now 0.625000)
    // pick 6: 970 0.726844 vs 1060 0.625000                                    → 970
    assert.deepEqual(picks(mixed(), 6, 0.5), ['gtx1060', 'gtx970', 'gtx1060', 'gtx970', 'gtx1060', 'gtx970']);
  });

  it('β = 0.9: performance wins until idleness outweighs it', () => {
    // score = 0.9 × perf + 0.1 × spare; 970 = 0.858320 + 0.1 × spare
    // pick 1: 1060 1.000 vs 970 0.958320 → 1060 (→ 0.975)
    // pick 2: 1060 0.975 vs 970 0.958320 → 1060 (→ 0.950)
    // pick 3: 1060 0.950 vs 970 0.958320 → 970  (→ 0.933320)
    // pick 4: 1060 0.950 vs 970 0.933320 → 1060 (→ 0.925)
    // pick 5: 1060 0.925 vs 970 0.933320 → 970  (→ 0.908320)
    // pick 6: 1060 0.925 vs 970 0.908320 → 1060
    assert.deepEqual(picks(mixed(), 6, 0.9), ['gtx1060', 'gtx1060', 'gtx970', 'gtx1060', 'gtx970', 'gtx1060']);
  });

  it("the paper's example: three 1060s and a 970, 4 workers — the 4th goes by β", () => {
    // Picks 1–3: each idle 1060 scores β + (1 − β) = 1 > the 970's 0.953689β + (1 − β).
    // Pick 4: a used 1060 scores β + 0.75(1 − β), the 970 0.953689β + (1 − β);
    // the 1060 wins when β + 0.75(1 − β) > 0.953689β + (1 − β), i.e. 0.296311β > 0.25, β > 0.8437
    // (the paper's GFlops table puts this threshold at 0.5; ours follows formula 8).
    const cluster = (): SchedSupervisor[] => [
      sup('n1', [1, 2, 3, 4], [gpu('g1', GTX_1060)]),
      sup('n2', [1, 2, 3, 4], [gpu('g2', GTX_1060)]),
      sup('n3', [1, 2, 3, 4], [gpu('g3', GTX_1060)]),
      sup('n4', [1, 2, 3, 4], [gpu('g4', GTX_970)]),
    ];
    assert.deepEqual(picks(cluster(), 4, 0.8), ['g1', 'g2', 'g3', 'g4']);
    assert.deepEqual(picks(cluster(), 4, 0.9), ['g1', 'g2', 'g3', 'g1']);
  });

  it('skips a GPU whose node has no free port, and lists the candidates in the reason', () => {
    const supervisors = [sup('a', [1], [gpu('gtx970', GTX_970)]), sup('b', [1, 2, 3], [gpu('gtx1060', GTX_1060)])];
    const t = topo('t', [['k', 3, true, []]], { numWorkers: 3, numGpuWorkers: 3, beta: 0 });
    const input = { cluster: { supervisors }, topologies: [t], occupied: [{ supervisorId: 'a', port: 1, gpuId: null }] };
    const r = schedule(input, 'hetero');
    checkInvariants(input, r);
    const ws = r.assignments.get('t')!.workers;
    assert.deepEqual(ws.map((w) => w.gpu?.gpuId), ['gtx1060', 'gtx1060', 'gtx1060']);
    assert.match(ws[0]!.reason, /β=0\): GeForce GTX 1060 gtx1060 on b score 1\.000/);
    assert.match(ws[1]!.reason, /best candidates: gtx1060@b 0\.750/);
  });

  it('counts slots held by other topologies (occupied) in U', () => {
    // The 970 already has 3 of 4 slots used: spare 0.25, so at β = 0 the idle 1060 wins twice.
    const supervisors = mixed();
    const occupied = [1, 2, 3].map((port) => ({ supervisorId: 'a', port, gpuId: 'gtx970' }));
    const t = topo('t', [['k', 2, true, []]], { numWorkers: 2, numGpuWorkers: 2, beta: 0 });
    const input = { cluster: { supervisors }, topologies: [t], occupied };
    const r = schedule(input, 'hetero');
    checkInvariants(input, r);
    assert.deepEqual(r.assignments.get('t')!.workers.map((w) => [w.gpu?.gpuId, w.port]), [['gtx1060', 1], ['gtx1060', 2]]);
  });
});
