/**
 * Scheduler benchmark (DESIGN §11): both strategies on simulated clusters of
 * 100, 1 000 and 10 000 supervisors (4 ports, 0–4 GPUs each) with 10, 100 and
 * 1 000 topologies of realistic size (2–5 workers, 5–50 executors; 40 % with a
 * GPU component). Prints the time of each case, how much was placed, and the
 * growth per 10× size — the target is ~linear growth and < 2 s for 10 000 × 1 000.
 * Everything is drawn from a fixed-seed generator, so runs are comparable.
 */
import type { GpuInfo } from '../common/resources.js';
import { schedule, type SchedSupervisor, type SchedTopology, type ScheduleInput, type SchedulerStrategy } from '../nimbus/scheduler/index.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { seededRandom } from '../common/seeded-random.js';

const MODELS: Omit<GpuInfo, 'id' | 'slots' | 'source'>[] = [
  { name: 'NVIDIA H200', smCount: 132, coresPerSm: 128, clockMHz: 1980, memoryMB: 143771, computeCapability: '9.0' },
  { name: 'NVIDIA A100-SXM4-80GB', smCount: 108, coresPerSm: 64, clockMHz: 1410, memoryMB: 81920, computeCapability: '8.0' },
  { name: 'Tesla T4', smCount: 40, coresPerSm: 64, clockMHz: 1590, memoryMB: 15360, computeCapability: '7.5' },
  { name: 'NVIDIA GeForce GTX 1080 Ti', smCount: 28, coresPerSm: 128, clockMHz: 1911, memoryMB: 11264, computeCapability: '6.1' },
];

export function simulatedCluster(supervisors: number, seed: number): SchedSupervisor[] {
  const r = seededRandom(seed);
  const out: SchedSupervisor[] = [];
  for (let i = 0; i < supervisors; i++) {
    const id = `sup-${String(i).padStart(5, '0')}`;
    const nGpus = Math.floor(r() * 5);
    const model = MODELS[Math.floor(r() * MODELS.length)]!;
    const gpus: GpuInfo[] = Array.from({ length: nGpus }, (_, j) => ({ ...model, id: `${id}-gpu${j}`, slots: 4, source: 'declared', index: j }));
    out.push({ id, host: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, ports: [6700, 6701, 6702, 6703], gpus });
  }
  return out;
}

export function simulatedTopologies(count: number, seed: number): SchedTopology[] {
  const r = seededRandom(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const out: SchedTopology[] = [];
  for (let t = 0; t < count; t++) {
    const numWorkers = int(2, 5);
    const nComps = int(2, 5);
    const target = int(5, 50) - numWorkers; // ackers are one per worker
    const hasGpu = r() < 0.4;
    const components = Array.from({ length: nComps }, (_, i) => ({
      id: i === 0 ? 'spout' : `bolt${i}`,
      parallelism: Math.max(1, Math.round(target / nComps)),
      gpu: hasGpu && i === nComps - 1,
      inputs: i === 0 ? [] : [i === 1 || r() < 0.7 ? (i === 1 ? 'spout' : `bolt${i - 1}`) : 'spout'],
    }));
    components.push({ id: '__acker', parallelism: numWorkers, gpu: false, inputs: [] });
    let task = 1;
    const executors = components.flatMap((c) => Array.from({ length: c.parallelism }, () => ({ component: c.id, task: task++ })));
    out.push({
      id: `topo-${t}`,
      components,
      executors,
      numWorkers,
      numGpuWorkers: hasGpu ? int(1, Math.min(2, numWorkers - 1)) : 0,
      alpha: [0, 0.1, 0.2][t % 3]!,
      beta: 0.3,
    });
  }
  return out;
}

interface Row {
  strategy: SchedulerStrategy;
  supervisors: number;
  topologies: number;
  /** Median over `reps` runs. */
  ms: number;
  /** Fastest run: the least disturbed by other load on the machine; growth ratios use it. */
  minMs: number;
  reps: number;
  placedPct: number;
  workers: number;
  gpuWorkers: number;
}

/**
 * Median of repeated runs after a warm-up: at least `minReps`, and until
 * `minMs` have passed, so sub-millisecond cases are not one noisy sample.
 */
function timeOne(
  input: ScheduleInput,
  strategy: SchedulerStrategy,
  minReps: number,
  minMs: number,
): { ms: number; minMs: number; reps: number; stats: Omit<Row, 'strategy' | 'supervisors' | 'topologies' | 'ms' | 'minMs' | 'reps'> } {
  const times: number[] = [];
  let result = schedule(input, strategy); // warm-up: JIT, not measured
  const gc = (globalThis as { gc?: () => void }).gc;
  let spent = 0;
  while (times.length < minReps || (spent < minMs && times.length < 200)) {
    gc?.();
    const t0 = process.hrtime.bigint();
    result = schedule(input, strategy);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    times.push(ms);
    spent += ms;
  }
  times.sort((a, b) => a - b);
  let placed = 0;
  let total = 0;
  let workers = 0;
  let gpuWorkers = 0;
  for (const a of result.assignments.values()) {
    for (const w of a.workers) {
      placed += w.executors.length;
      workers++;
      if (w.gpu) gpuWorkers++;
    }
    total += a.unassigned.length;
  }
  total += placed;
  return {
    ms: times[Math.floor(times.length / 2)]!,
    minMs: times[0]!,
    reps: times.length,
    stats: { placedPct: total ? (100 * placed) / total : 100, workers, gpuWorkers },
  };
}

function pad(s: string | number, n: number): string {
  return String(s).padStart(n);
}

export async function run(args: BenchArgs): Promise<void> {
  const sizes = args.quick ? [100, 1000] : [100, 1000, 10000];
  const counts = args.quick ? [10, 100] : [10, 100, 1000];
  const strategies: SchedulerStrategy[] = ['even', 'hetero'];
  const minReps = args.quick ? 3 : 5;
  const minMs = args.quick ? 100 : 400;
  const progress = new BenchProgress('scheduler', sizes.length * counts.length * strategies.length, !args.json && process.stderr.isTTY === true);
  const rows: Row[] = [];
  for (const supervisors of sizes) {
    const cluster = { supervisors: simulatedCluster(supervisors, 1) };
    for (const topologies of counts) {
      const input: ScheduleInput = { cluster, topologies: simulatedTopologies(topologies, 2), occupied: [], gpuFallbackToCpu: true };
      for (const strategy of strategies) {
        progress.step(`${strategy} ${supervisors}×${topologies}`);
        const t = timeOne(input, strategy, minReps, minMs);
        rows.push({ strategy, supervisors, topologies, ms: t.ms, minMs: t.minMs, reps: t.reps, ...t.stats });
        await new Promise((r) => setImmediate(r)); // let the progress bar draw
      }
    }
  }
  progress.stop();

  const find = (s: SchedulerStrategy, n: number, t: number): Row | undefined =>
    rows.find((r) => r.strategy === s && r.supervisors === n && r.topologies === t);
  const growth: { strategy: SchedulerStrategy; what: string; ratio: number }[] = [];
  for (const s of strategies) {
    for (let i = 1; i < sizes.length; i++) {
      for (const t of counts) {
        const a = find(s, sizes[i - 1]!, t);
        const b = find(s, sizes[i]!, t);
        if (a && b) growth.push({ strategy: s, what: `supervisors ${sizes[i - 1]}→${sizes[i]} @ ${t} topologies`, ratio: b.minMs / a.minMs });
      }
      // Both dimensions ×10 at once: the diagonal 100×10 → 1 000×100 → 10 000×1 000.
      const a = find(s, sizes[i - 1]!, counts[i - 1]!);
      const b = find(s, sizes[i]!, counts[i]!);
      if (a && b) growth.push({ strategy: s, what: `${sizes[i - 1]}×${counts[i - 1]} → ${sizes[i]}×${counts[i]} (both ×10)`, ratio: b.minMs / a.minMs });
    }
  }

  if (args.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'scheduler', rows, growth }, null, 2)}\n`);
    return;
  }
  const lines = [
    `scheduler benchmark (median after a warm-up, ≥ ${minReps} runs and ≥ ${minMs} ms per case; single thread; node ${process.version}` +
      `${(globalThis as { gc?: unknown }).gc ? '; GC between runs' : ''})`,
    '',
    '| strategy | supervisors | topologies | median ms |  min ms | runs | placed % | workers | GPU workers |',
    '| -------- | ----------: | ---------: | --------: | ------: | ---: | -------: | ------: | ----------: |',
    ...rows.map(
      (r) =>
        `| ${r.strategy.padEnd(8)} | ${pad(r.supervisors, 11)} | ${pad(r.topologies, 10)} | ${pad(r.ms.toFixed(2), 9)} | ${pad(r.minMs.toFixed(2), 7)} | ${pad(r.reps, 4)} | ` +
        `${pad(r.placedPct.toFixed(1), 8)} | ${pad(r.workers, 7)} | ${pad(r.gpuWorkers, 11)} |`,
    ),
    '',
    'growth per 10× size (ratio of min times; 10 = linear):',
    ...growth.map((g) => `  ${g.strategy.padEnd(6)} ${g.what.padEnd(44)} ×${g.ratio.toFixed(2)}`),
  ];
  const big = rows.filter((r) => r.supervisors === 10000 && r.topologies === 1000);
  for (const r of big) lines.push(`target 10 000 × 1 000 < 2 s: ${r.strategy} ${r.ms.toFixed(0)} ms — ${r.ms < 2000 ? 'met' : 'MISSED'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
