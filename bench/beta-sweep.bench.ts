/**
 * `npm run bench -- beta-sweep [--quick]` — H-Storm Fig. 10: the matmul
 * topology with 5 and 15 GPU workers on a cluster of declared GTX 1060s and
 * GTX 970s, β = 0, 0.1, …, 1.
 *
 * Modelled (no GPUs here, and a declared GPU runs on a CPU backend, so the
 * speed difference between the two models cannot be measured): for each β the
 * scheduler's real placement on the paper-like cluster (bench/support/
 * paper-cluster.ts), valued as
 *   - capacity: Σ over workers of its GPU's performance (formula 8, normalised
 *     to the best GPU) divided among the workers sharing that GPU — the rate if
 *     work went to workers in proportion to their speed;
 *   - shuffle-bound: W × the slowest worker's share — the rate when shuffle
 *     grouping gives every worker the same number of tuples;
 *   - service time: the mean over workers of (workers on its GPU ÷ its
 *     performance), the model's per-tuple latency without queueing.
 * Measured: real local runs (5 GPU workers) for a few β, showing the runtime
 * binds workers to the GPUs the scheduler chose — nimbus's assignment and each
 * worker's own report — with their throughput, which is expected flat.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gpuPerformance } from '../common/resources.js';
import { schedule, type SchedSupervisor, type SchedTopology } from '../nimbus/scheduler/index.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { writeReport, type Row } from './support/results.js';
import { runOnLocalCluster, schedTopologyOf } from './support/cluster-run.js';
import { localPaperCluster, localPaperGpus, modelLabel, paperCluster, valueGpuPlacement } from './support/paper-cluster.js';
import { SeriesRecorder, round, writeCsv } from './support/run-series.js';

const here = dirname(fileURLToPath(import.meta.url));
const TOPOLOGY = join(here, 'topologies', 'gpu-matmul.js');
const BETAS = Array.from({ length: 11 }, (_, i) => i / 10);

/** Mean over GPU workers of (workers on its GPU ÷ its normalised performance). */
/** Units of the modelled metrics: performance is normalised to the best GPU (a GTX 1060 = 1). */
const BETA_UNITS: Record<string, string> = {
  'shuffle-bound throughput': 'GTX 1060 rates',
  'capacity throughput': 'GTX 1060 rates',
  'service time': 'GTX 1060 tuple times',
};

function serviceTime(cluster: SchedSupervisor[], perGpu: Map<string, number>): number {
  const gpus = new Map(cluster.flatMap((s) => s.gpus.map((g) => [`${s.id}/${g.id}`, g] as [string, (typeof s.gpus)[number]])));
  const best = Math.max(...[...gpus.values()].map((g) => gpuPerformance(g)));
  let total = 0;
  let workers = 0;
  for (const [key, k] of perGpu) {
    total += k * (k / (gpuPerformance(gpus.get(key)!) / best));
    workers += k;
  }
  return workers ? total / workers : 0;
}

function place(cluster: SchedSupervisor[], topo: SchedTopology, beta: number) {
  const t = { ...topo, beta };
  const sched = schedule({ cluster: { supervisors: cluster }, topologies: [t], occupied: [] }, 'hetero').assignments.get(t.id)!;
  const v = valueGpuPlacement(cluster, sched, beta);
  return { sched, v, service: serviceTime(cluster, v.perGpu) };
}

export async function run(args: BenchArgs): Promise<void> {
  const measuredBetas = args.quick ? [0.1, 1] : [0, 0.3, 0.7, 1];
  const seconds = args.quick ? 10 : 30;
  const bar = new BenchProgress('beta-sweep', 1 + measuredBetas.length, !args.json);

  bar.step('model: scheduler placements');
  const cluster = paperCluster();
  const rows: Row[] = [];
  const plotRows: Row[] = [];
  for (const w of [5, 15]) {
    const topo = await schedTopologyOf(TOPOLOGY, { 'topology.gpu.workers': w, 'topology.workers': w + 1 }, `beta-${w}`);
    const base = place(cluster, topo, 0);
    for (const beta of BETAS) {
      const { v, service } = place(cluster, topo, beta);
      const row: Row = {
        gpuWorkers: w,
        beta: beta.toFixed(1),
        on1060: v.perModel['1060'] ?? 0,
        on970: v.perModel['970'] ?? 0,
        gpusUsed: v.perGpu.size,
        mostOnOneGpu: Math.max(...v.perGpu.values()),
        scoreSum: round(v.scoreSum, 3),
        modelCapacity: round(v.modelCapacity, 3),
        modelShuffle: round(v.modelShuffle, 3),
        modelServiceTime: round(service, 3),
        shuffleVsBeta0: round(v.modelShuffle / base.v.modelShuffle, 3),
      };
      rows.push(row);
      for (const [metric, value] of [
        ['shuffle-bound throughput', v.modelShuffle],
        ['capacity throughput', v.modelCapacity],
        ['service time', service],
      ] as const) {
        plotRows.push({ gpuWorkers: `${w} GPU workers`, beta, metric, value: round(value, 3) });
      }
    }
  }

  // Measured: 5 GPU workers on one local supervisor holding the same six declared GPUs.
  const measured: Row[] = [];
  const backends: Record<string, string> = {};
  const localTopo = await schedTopologyOf(TOPOLOGY, { 'topology.gpu.workers': 5, 'topology.workers': 6 }, 'beta-local');
  for (const beta of measuredBetas) {
    bar.step(`run β=${beta}`);
    const expected = place(localPaperCluster(localTopo.numWorkers), localTopo, beta).v.perModel;
    const rec = new SeriesRecorder();
    const r = await runOnLocalCluster({
      module: TOPOLOGY,
      name: `beta-${Math.round(beta * 10)}`,
      durationSec: seconds,
      overrides: { 'topology.gpu.workers': 5, 'topology.workers': 6, 'hstorm.gpu.beta': beta },
      clusterConfig: { 'nimbus.scheduler': 'hetero', 'supervisor.gpu.discovery': 'declared', 'supervisor.gpus': localPaperGpus() },
      onProgress: rec.onProgress,
    });
    const assigned: Record<string, number> = {};
    for (const w of r.detail?.workers ?? []) if (w.gpu) assigned[modelLabel(w.gpu.name)] = (assigned[modelLabel(w.gpu.name)] ?? 0) + 1;
    const bound = r.workers.flatMap((w) => (w.gpuId ? [w.gpuId] : []));
    const boundModels: Record<string, number> = {};
    for (const id of bound) boundModels[modelLabel(id)] = (boundModels[modelLabel(id)] ?? 0) + 1;
    const fmt = (m: Record<string, number>) => `${m['1060'] ?? 0}×1060 + ${m['970'] ?? 0}×970`;
    const g = r.summary.components.dealer?.gpu;
    if (g) backends.dealer = `${g.backends.join('/')} — a CPU backend${g.fallback ? ' (declared GPU, no hardware)' : ''}, not a GPU`;
    const steady = rec.steady(args.quick ? 4 : 8);
    measured.push({
      beta: beta.toFixed(1),
      scheduled: fmt(expected),
      nimbusAssigned: fmt(assigned),
      workersBound: `${fmt(boundModels)} (${[...new Set(bound)].sort().join(' ')})`,
      throughput: steady.throughput,
      latencyMs: steady.latencyMs,
      failed: r.summary.failed,
    });
  }
  bar.stop();

  const at = (w: number, beta: string) => rows.find((r) => r.gpuWorkers === w && r.beta === beta)!;
  const ratios: Record<string, number | string> = {};
  for (const w of [5, 15]) {
    const best = rows.filter((r) => r.gpuWorkers === w).reduce((a, b) => ((b.modelShuffle as number) > (a.modelShuffle as number) + 1e-9 ? b : a));
    ratios[`modelled shuffle-bound throughput, ${w} workers: β=1 / β=0`] = round((at(w, '1.0').modelShuffle as number) / (at(w, '0.0').modelShuffle as number), 3);
    ratios[`modelled best β, ${w} workers`] = `${String(best.beta)} (first of the best)`;
  }
  const m0 = measured[0]!;
  const mLast = measured[measured.length - 1]!;
  ratios[`measured throughput β=${String(mLast.beta)} / β=${String(m0.beta)} (CPU backend: expected 1, the rest is noise)`] = round((mLast.throughput as number) / (m0.throughput as number), 3);
  ratios['runtime placement = scheduler placement'] = measured.every((m) => m.scheduled === m.nimbusAssigned && String(m.workersBound).startsWith(String(m.scheduled))) ? 'yes, every measured β' : 'NO — see measured.csv';

  const dir = await writeReport({
    experiment: 'beta-sweep',
    title: 'β sweep — GPU workers on GTX 1060 / GTX 970 (H-Storm Fig. 10): modelled placement value, measured binding',
    command: `npm run bench -- beta-sweep${args.quick ? ' --quick' : ''}`,
    rows,
    plot: {
      // writeReport puts the table's rows at the top level; each panel brings its own data
      vconcat: ['shuffle-bound throughput', 'capacity throughput', 'service time'].map((metric) => ({
        data: { values: plotRows.filter((r) => r.metric === metric) },
        width: 420,
        height: 150,
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'beta', type: 'quantitative', title: 'β (weight of GPU performance, 0–1)' },
          y: { field: 'value', type: 'quantitative', title: `modelled ${metric} (${BETA_UNITS[metric]})` },
          color: { field: 'gpuWorkers', type: 'nominal', title: 'topology' },
        },
      })),
    },
    backends,
    ratios,
    notes: [
      'MODELLED vs MEASURED: every number in the table above and the plot is computed from the scheduler\'s placement (the real hetero strategy) with GPU performance from formula 8; none was measured on a GPU. The measured runs below show that the runtime carries that placement out, and that on this machine (CPU backend for every declared GPU) the GPU model a worker is bound to does not change its speed.',
      'Cluster: S1–S3 each with one GTX 1060 6GB (10 SMs × 128 × 1708 MHz) and one GTX 970 (13 × 128 × 1178 MHz, 0.897 of the 1060), 4 slots per GPU; S4–S6 without GPUs; 10 ports per node. The paper\'s Table 1/2 is not in our copy of the text; this layout fits its worked example (three 1060s taken first). With these figures the 4th worker of a topology moves from a 970 to a 1060 at β > 0.71 (the paper says 0.5 with its own GFLOPS figures).',
      `Measured runs: ${seconds} s each, 5 GPU workers + 1 CPU worker on one local supervisor that declares the same six GPUs (local mode gives all supervisors one GPU list; Algorithm 3's scores do not depend on the node). 15 GPU workers were not run: 16 worker processes on 2 cores would measure CPU contention only.`,
      ...measured.map((m) => `measured β=${String(m.beta)}: scheduler predicts ${String(m.scheduled)}; nimbus assigned ${String(m.nimbusAssigned)}; workers report they bound ${String(m.workersBound)}; throughput ${String(m.throughput)} tuples/s, mean latency ${String(m.latencyMs)} ms, failed ${String(m.failed)}`),
      'Paper (Fig. 10, real GPUs, 64² and 256² matrices): with 5 workers the best throughput is at β = 0.1, with 15 workers at β = 0.3; throughput falls and latency rises as β grows toward 1 (work piles onto the fastest GPUs). Our shuffle-bound model reproduces the fall toward β = 1; the paper\'s small optimum above 0 comes from measured GPU behaviour (MPS) the model does not have.',
      'Data files: beta-sweep.csv (modelled rows), measured.csv (real runs), plot data in plot.csv.',
    ],
    quick: args.quick,
  });
  writeCsv(join(dir, 'measured.csv'), measured);
  writeCsv(join(dir, 'plot.csv'), plotRows);
  if (args.json) process.stdout.write(`${JSON.stringify({ rows, measured })}\n`);
  else process.stdout.write(`beta-sweep: ${Object.entries(ratios).map(([k, v]) => `${k}: ${v}`).join('; ')}\n  report: ${dir}/summary.md\n`);
}
