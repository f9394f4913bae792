/**
 * The paper's GPUs as declared GPUs, and what a placement on them is worth in
 * a model — for the β and scheduler benchmarks, which run on a machine
 * without those GPUs (a declared GPU runs its kernels on a CPU backend, so
 * the real speed difference between models cannot be measured here).
 *
 * GTX 1060 6GB: 10 SMs × 128 cores (cc 6.1) × 1708 MHz boost; GTX 970:
 * 13 SMs × 128 cores (cc 5.2) × 1178 MHz boost — formula 8 gives the 970
 * 0.897 of the 1060. The paper's Table 1/2 (which node has which card) is not
 * in our copy of the text; its worked example ("the first 3 workers go to
 * GTX 1060s, the 4th to a 1060 or a 970 depending on β") fits three 1060s,
 * so we declare S1–S3 each with one GTX 1060 and one GTX 970, 4 slots each,
 * and S4–S6 without GPUs.
 */
import { gpuPerformance, type GpuInfo } from '../../common/resources.js';
import { gpuScore, type SchedSupervisor, type SchedTopology, type TopologySchedule } from '../../nimbus/scheduler/index.js';

export const GTX_1060 = { name: 'GeForce GTX 1060 6GB', smCount: 10, coresPerSm: 128, clockMHz: 1708, memoryMB: 6144, computeCapability: '6.1' } as const;
export const GTX_970 = { name: 'GeForce GTX 970', smCount: 13, coresPerSm: 128, clockMHz: 1178, memoryMB: 4096, computeCapability: '5.2' } as const;

type Model = typeof GTX_1060 | typeof GTX_970;

/** Short label used in tables: "1060" / "970". */
export function modelLabel(name: string): string {
  return /970/.test(name) ? '970' : /1060/.test(name) ? '1060' : name;
}

/** A declared GPU as `supervisor.gpus` takes it (config form). */
export function declared(id: string, m: Model, slots = 4): Record<string, unknown> {
  return { id, ...m, slots };
}

/** The paper-like cluster for the scheduler alone: S1–S3 with a 1060 and a 970 each, S4–S6 CPU only, `ports` each. */
export function paperCluster(ports = 10): SchedSupervisor[] {
  const range = Array.from({ length: ports }, (_, i) => 6700 + i);
  return Array.from({ length: 6 }, (_, i) => {
    const id = `S${i + 1}`;
    const gpus =
      i < 3
        ? [
            { ...GTX_1060, id: `${id}-gtx1060`, slots: 4, source: 'declared' as const, index: 0 },
            { ...GTX_970, id: `${id}-gtx970`, slots: 4, source: 'declared' as const, index: 1 },
          ]
        : [];
    return { id, host: id.toLowerCase(), ports: range, gpus };
  });
}

/**
 * The same six GPUs on one local supervisor (`supervisor.gpus`): local mode
 * shares one declared-GPU list between its supervisors, and Algorithm 3's
 * scores do not depend on which node a GPU is on, so the per-model split of a
 * placement is the same as on the three-node cluster.
 */
export function localPaperGpus(): Record<string, unknown>[] {
  return [1, 2, 3].flatMap((i) => [declared(`S${i}-gtx1060`, GTX_1060), declared(`S${i}-gtx970`, GTX_970)]);
}

/** The scheduler's view of `localPaperGpus()` on one node with `ports` ports (ids as local mode names them). */
export function localPaperCluster(ports: number): SchedSupervisor[] {
  return [
    {
      id: 'local-0',
      host: '127.0.0.1',
      ports: Array.from({ length: ports }, (_, i) => 6700 + i),
      gpus: localPaperGpus().map((g, index) => ({ ...(g as unknown as Model), id: g.id as string, slots: 4, source: 'declared' as const, index })),
    },
  ];
}

export interface GpuPlacement {
  /** GPU workers per GPU model, e.g. { '1060': 3, '970': 2 }. */
  perModel: Record<string, number>;
  /** GPU workers per GPU id. */
  perGpu: Map<string, number>;
  /** Σ of the score each pick had when it was made (Algorithm 3 replayed in pick order). */
  scoreSum: number;
  /** Σ over GPUs in use of their normalised performance: each worker gets perf / (workers on its GPU). */
  modelCapacity: number;
  /** W × the slowest worker's share: the rate when shuffle grouping gives every worker the same load. */
  modelShuffle: number;
}

/**
 * Values a placement of GPU workers on the cluster's GPUs. Performance is
 * normalised by the best GPU in the cluster (as Algorithm 3 scores it).
 */
export function valueGpuPlacement(cluster: SchedSupervisor[], sched: TopologySchedule, beta: number): GpuPlacement {
  const gpus = new Map<string, GpuInfo>(cluster.flatMap((s) => s.gpus.map((g) => [`${s.id}/${g.id}`, g] as const)));
  const best = Math.max(...[...gpus.values()].map((g) => gpuPerformance(g)));
  const perGpu = new Map<string, number>();
  const perModel: Record<string, number> = {};
  let scoreSum = 0;
  for (const w of sched.workers) {
    if (!w.gpu) continue;
    const key = `${w.supervisorId}/${w.gpu.gpuId}`;
    const g = gpus.get(key);
    if (!g) throw new Error(`worker on unknown GPU ${key}`);
    const used = perGpu.get(key) ?? 0;
    scoreSum += gpuScore(beta, gpuPerformance(g) / best, g.slots, used);
    perGpu.set(key, used + 1);
    const label = modelLabel(g.name);
    perModel[label] = (perModel[label] ?? 0) + 1;
  }
  let capacity = 0;
  let slowest = Infinity;
  let workers = 0;
  for (const [key, k] of perGpu) {
    const perf = gpuPerformance(gpus.get(key)!) / best;
    capacity += perf;
    slowest = Math.min(slowest, perf / k);
    workers += k;
  }
  return { perModel, perGpu, scoreSum, modelCapacity: capacity, modelShuffle: workers ? workers * slowest : 0 };
}

export interface PlacementFacts {
  /** Algorithm 2's N for the GPU executors (null for `even`). */
  n: number | null;
  workers: number;
  /** Executors per worker, largest first, e.g. "7,7,6,4". */
  perWorker: string;
  /** Of all (sender task, receiver task) pairs over the component graph's edges, how many are in different workers. */
  crossPairs: number;
  pairs: number;
}

/**
 * Placement facts from the scheduler's output. Cross-worker pairs estimate the
 * share of tuples that leave their process: with shuffle grouping each sender
 * task spreads its tuples evenly over the receiver tasks.
 */
export function placementFacts(topo: SchedTopology, sched: TopologySchedule, n: number | null): PlacementFacts {
  const workerOf = new Map<number, number>();
  sched.workers.forEach((w, i) => w.executors.forEach((x) => workerOf.set(x.task, i)));
  const tasksOf = (c: string) => topo.executors.filter((x) => x.component === c).map((x) => x.task);
  let pairs = 0;
  let cross = 0;
  for (const c of topo.components) {
    for (const input of c.inputs) {
      for (const from of tasksOf(input)) {
        for (const to of tasksOf(c.id)) {
          pairs++;
          if (workerOf.get(from) !== workerOf.get(to)) cross++;
        }
      }
    }
  }
  const sizes = sched.workers.map((w) => w.executors.length).sort((a, b) => b - a);
  return { n, workers: sched.workers.length, perWorker: sizes.join(','), crossPairs: cross, pairs };
}
