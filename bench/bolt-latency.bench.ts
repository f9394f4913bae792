/**
 * `npm run bench -- bolt-latency [--quick] [--json]` — the paper's Table 3:
 * processing latency of the CPU bolt and of the GPU bolt, parallelism 1, for
 * n×n matrix products at n = 32 … 1024, and the speed-up per dimension.
 *
 * - CPU bolt: MultiplyBolt's work per tuple — the plain-JavaScript product
 *   and its checksum (examples/matmul/multiply-bolt.ts).
 * - GPU bolt: MatrixDealer's work per tuple — pack the inputs, one kernel
 *   launch of one item (parallelism 1, batch 1: a latency, not a batched
 *   throughput), read the result and its checksum — through the same
 *   GpuKernelRunner the bolt uses, on the best backend this machine has:
 *   WebGPU when an adapter answers, else webasm (a CPU backend, labelled so).
 *
 * Timed in-process, without a topology around the bolts, so transport and
 * queueing do not blur a per-tuple figure (the topology benchmark measures
 * those). Each case repeats until it has run for the case budget; the first
 * kernel launch (compilation) is not timed. Every product is checked
 * against the plain-JS one.
 */
import { availableParallelism } from 'node:os';
import { GpuKernelRunner } from '../topology-sdk/gpu-kernel-runner.js';
import { isGpuBackend, type GpuBackendHandle } from '../topology-sdk/gpu-backend-handle.js';
import { releaseWebGpu, selectGpuBackend } from '../worker/gpu-backend.js';
import { matmulKernel } from '../examples/matmul/gpu-multiply-bolt.js';
import { multiply, randomMatrix, seededRandom, sum } from '../examples/matmul/matrix.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { machineDescription, writeReport, type ExperimentReport, type Row } from './support/results.js';
import { loadavg, round } from './support/topology-runs.js';

const DIMS = [32, 64, 128, 256, 512, 1024];
/** The paper's Table 3 states the 512² speed-up only (74×); DESIGN §11 takes it as the GPU target. */
const PAPER_SPEEDUP_512 = 74;
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

interface Timing {
  runs: number;
  meanMs: number;
  p50Ms: number;
}

export async function run(args: BenchArgs): Promise<void> {
  const budgetMs = args.quick ? 400 : 3000;
  const load = loadavg();
  const threads = availableParallelism();
  const bar = new BenchProgress('bolt-latency', DIMS.length * 2 + 1, !args.json);

  bar.step('probing backends');
  const webgpu = await selectGpuBackend({ gpu: null, forced: 'webgpu', log: silent, probeTimeoutMs: 5000 });
  const sel = webgpu.backend === 'webgpu' ? webgpu : await selectGpuBackend({ gpu: null, forced: 'webasm', log: silent });
  const handle: GpuBackendHandle = { ...sel, cpuThreads: () => threads };
  const why = webgpu.backend === 'webgpu' ? null : (webgpu.fallbackReason ?? 'no WebGPU adapter');

  const rows: Row[] = [];
  const ran = new Set<string>();
  try {
    for (const n of DIMS) {
      const rand = seededRandom(n);
      const a = randomMatrix(n, rand);
      const b = randomMatrix(n, rand);
      const reference = multiply(a, b, n);

      bar.step(`CPU bolt ${n}²`);
      const cpu = time(budgetMs, () => sum(multiply(a, b, n)));

      bar.step(`GPU bolt ${n}² (${sel.backend})`);
      const runner = await GpuKernelRunner.create(matmulKernel(n), 1, handle);
      let gpu: Timing;
      let maxErr = 0;
      let backend: string;
      try {
        const once = async () => {
          const p = runner.batchInputs();
          const r = await runner.run([p.pack([a], [n, n]), p.pack([b], [n, n])], 1);
          const c = r.item(0);
          sum(c);
          return c;
        };
        maxErr = maxAbsDiff(await once(), reference);
        gpu = await timeAsync(budgetMs, once);
        backend = runner.backend ?? sel.backend;
      } finally {
        runner.destroy();
      }
      ran.add(backend);
      rows.push(
        { n, bolt: 'CPU bolt', backend: 'js', latencyMs: round(cpu.meanMs, 4), p50Ms: round(cpu.p50Ms, 4), runs: cpu.runs, speedup: 1, speedupP50: 1, maxAbsError: 0 },
        {
          n,
          bolt: isGpuBackend(backend) ? 'GPU bolt' : `GPU bolt on ${backend} (CPU backend)`,
          backend,
          latencyMs: round(gpu.meanMs, 4),
          p50Ms: round(gpu.p50Ms, 4),
          runs: gpu.runs,
          speedup: round(cpu.meanMs / gpu.meanMs, 2),
          speedupP50: round(cpu.p50Ms / gpu.p50Ms, 2),
          maxAbsError: Number(maxErr.toExponential(2)),
        },
      );
    }
  } finally {
    await releaseWebGpu();
  }
  bar.stop();

  const onGpu = [...ran].some(isGpuBackend);
  const gpuRows = rows.filter((r) => r.bolt !== 'CPU bolt');
  const ratios: Record<string, number | string> = {};
  for (const r of gpuRows) ratios[`speed-up at ${String(r.n)}² (CPU bolt ÷ GPU bolt on ${String(r.backend)}; mean / p50)`] = `${String(r.speedup)}× / ${String(r.speedupP50)}×`;
  ratios['paper (Table 3) at 512², real GPU'] = `${PAPER_SPEEDUP_512}×`;
  const at512 = gpuRows.find((r) => r.n === 512)?.speedup as number | undefined;
  ratios['DESIGN §11 target (≥ 74× at 512², GPU machines only)'] = onGpu ? (at512 !== undefined && at512 >= PAPER_SPEEDUP_512 ? 'met' : 'not met') : 'n/a: no GPU backend ran';

  const dir = await writeReport({
    experiment: 'bolt-latency',
    title: 'Table 3: CPU bolt vs GPU bolt processing latency (parallelism 1)',
    command: `npm run bench -- bolt-latency${args.quick ? ' --quick' : ''}`,
    rows,
    plot: {
      width: 420,
      height: 260,
      title: `Bolt processing latency per tuple (${onGpu ? 'GPU' : 'no GPU: GpuBolt on a CPU backend'})`,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'n', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'matrix dimension n (n×n)' },
        y: { field: 'latencyMs', type: 'quantitative', scale: { type: 'log' }, title: 'processing latency per tuple (ms, mean)' },
        color: { field: 'bolt', type: 'nominal', title: null },
      },
    } as ExperimentReport['plot'],
    backends: { 'GPU bolt (MatrixDealer kernel)': onGpu ? `${[...ran].join(', ')} (GPU${sel.device ? `: ${sel.device}` : ''})` : `${[...ran].join(', ')} — a CPU backend, not a GPU (${why})` },
    ratios,
    notes: [
      `machine: ${machineDescription()}; load average at start ${load}, at end ${loadavg()}; the GpuBolt's CPU backend uses ${threads} threads.`,
      onGpu
        ? 'The GPU bolt ran on a GPU backend.'
        : `No GPU here: the "GPU bolt" is the same GpuBolt kernel run by gpu.js on ${[...ran].join(', ')}, a CPU backend (${why}). Its speed-up over the CPU bolt is what SIMD + ${threads} threads give over one plain-JS thread, not what a GPU gives; the paper's 74× at 512² was measured on a GTX 1060/970 against a Java bolt.`,
      'The machine is shared with other jobs: means pick up their bursts; the p50 speed-up is the steadier figure.',
      'Per-tuple work only (in-process, no transport); the first launch, which compiles the kernel, is excluded. Every GPU-bolt product was compared with the plain-JS one (maxAbsError).',
      args.quick ? `quick mode: each case runs for at least ${budgetMs} ms (at least once).` : `each case runs for at least ${budgetMs} ms.`,
    ],
    quick: args.quick,
  });

  if (args.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'bolt-latency', rows, ratios, dir })}\n`);
    return;
  }
  process.stdout.write(`bolt-latency (Table 3), GPU bolt on ${[...ran].join(', ')}${onGpu ? '' : ' — a CPU backend (no GPU)'}\n`);
  for (const n of DIMS) {
    const c = rows.find((r) => r.n === n && r.bolt === 'CPU bolt')!;
    const g = gpuRows.find((r) => r.n === n)!;
    process.stdout.write(`  n=${String(n).padStart(4)}  CPU bolt ${String(c.latencyMs).padStart(10)} ms   GPU bolt (${g.backend}) ${String(g.latencyMs).padStart(10)} ms   speed-up ×${g.speedup} (p50 ×${g.speedupP50})\n`);
  }
  process.stdout.write(`report: ${dir}/summary.md\n`);
}

function stats(samples: number[]): Timing {
  const sorted = [...samples].sort((x, y) => x - y);
  return { runs: samples.length, meanMs: samples.reduce((s, x) => s + x, 0) / samples.length, p50Ms: sorted[Math.floor(sorted.length / 2)]! };
}

function time(budgetMs: number, fn: () => unknown): Timing {
  const samples: number[] = [];
  const start = performance.now();
  do {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  } while (performance.now() - start < budgetMs);
  return stats(samples);
}

async function timeAsync(budgetMs: number, fn: () => Promise<unknown>): Promise<Timing> {
  const samples: number[] = [];
  const start = performance.now();
  do {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  } while (performance.now() - start < budgetMs);
  return stats(samples);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
