/**
 * `npm run bench -- gpu-bolt [--quick] [--json]`: the GpuBolt matmul kernel
 * run directly (no topology) on every backend this machine has — WebGPU when
 * an adapter answers, webasm (SIMD + threads), cpu — beside the CPU bolt's
 * plain-JS product, for n = 64, 256, 512, 1024. Prints, per size and backend,
 * the backend that actually ran, kernel time per launch, tuples/s, and the
 * ratios WebGPU/CPU (vs the best CPU backend) and vs the CPU bolt. The WebGPU
 * row names its adapter; a software adapter (lavapipe) is labelled as such —
 * its ratio says what the WebGPU path costs on a CPU, not what a GPU gives.
 * When WebGPU cannot run it says so, why, and how to include it.
 */
import { availableParallelism } from 'node:os';
import { GpuKernelRunner } from '../topology-sdk/internal/gpu-kernel-runner.js';
import { releaseWebGpu } from '../worker/index.js';
import { benchBackends } from './support/gpu-backends.js';
import { machineDescription, writeReport, type ExperimentReport } from './support/results.js';
import { loadavg, round } from './support/topology-runs.js';
import { matmulKernel } from '../examples/matmul/gpu-multiply-bolt.js';
import { multiply, randomMatrix, seededRandom } from '../examples/matmul/matrix.js';
import type { BenchArgs } from './main.js';

interface Row {
  n: number;
  backend: string;
  batch: number;
  launches: number;
  kernelMsPerLaunch: number;
  tuplesPerSec: number;
  /** Throughput ÷ the CPU bolt's (plain JS). */
  vsCpuBolt: number | null;
  /** WebGPU rows: throughput ÷ the best CPU backend's at the same n. */
  gpuOverCpu: number | null;
  /** A real GPU ran it (not a CPU backend, not a software adapter). */
  hardwareGpu: boolean;
  maxAbsError: number | null;
}

/** Items per launch: small matrices batch along z, large ones fill a launch alone. */
function batchFor(n: number): number {
  return n <= 64 ? 16 : n <= 256 ? 4 : 1;
}

export async function run(args: Pick<BenchArgs, 'quick' | 'json'>): Promise<void> {
  const sizes = args.quick ? [64, 256] : [64, 256, 512, 1024];
  const minMs = args.quick ? 300 : 2000;
  const threads = availableParallelism();
  const out = (line: string) => {
    if (!args.json) process.stdout.write(`${line}\n`);
  };

  const probed = await benchBackends({ cpu: true, threads });
  const backends = probed.list;
  if (probed.webgpuUnavailable) out(`webgpu unavailable: ${probed.webgpuUnavailable}`);
  out(`gpu-bolt matmul: ${threads} CPU threads, ≥ ${minMs} ms per case${args.quick ? ' (quick)' : ''}`);

  const rows: Row[] = [];
  try {
    for (const n of sizes) {
      const batch = batchFor(n);
      const rand = seededRandom(n);
      const as = Array.from({ length: batch }, () => randomMatrix(n, rand));
      const bs = Array.from({ length: batch }, () => randomMatrix(n, rand));
      const reference = multiply(as[0]!, bs[0]!, n);

      const js = measure(minMs, () => multiply(as[0]!, bs[0]!, n));
      const jsRate = 1000 / js.msPerCall;
      rows.push({ n, backend: 'js (CPU bolt)', batch: 1, launches: js.calls, kernelMsPerLaunch: js.msPerCall, tuplesPerSec: jsRate, vsCpuBolt: 1, gpuOverCpu: null, hardwareGpu: false, maxAbsError: 0 });

      for (const b of backends) {
        // The plain cpu backend at 1024² takes seconds per launch and shows nothing new in a quick run.
        if (b.name === 'cpu' && args.quick && n > 256) continue;
        const runner = await GpuKernelRunner.create(matmulKernel(n), batch, b.handle);
        try {
          const inputs = () => {
            const p = runner.batchInputs();
            return [p.pack(as, [n, n]), p.pack(bs, [n, n])];
          };
          // First launch compiles the kernel (and may fall back): not timed.
          const first = await runner.run(inputs(), batch);
          const err = maxAbsDiff(first.item(0), reference);
          const r = await measureAsync(minMs, async () => {
            await runner.run(inputs(), batch);
          });
          const ran = runner.backend ?? b.name;
          rows.push({
            n,
            backend: ran === b.name ? b.label : `${ran} (fell back from ${b.label})`,
            hardwareGpu: ran === b.name && b.hardwareGpu,
            batch,
            launches: r.calls,
            kernelMsPerLaunch: r.msPerCall,
            tuplesPerSec: (batch * 1000) / r.msPerCall,
            vsCpuBolt: (batch * 1000) / r.msPerCall / jsRate,
            gpuOverCpu: null,
            maxAbsError: err,
          });
        } finally {
          runner.destroy();
        }
      }
      const here = rows.filter((r) => r.n === n);
      const bestCpu = Math.max(...here.filter((r) => r.backend === 'webasm' || r.backend === 'cpu' || r.backend.startsWith('js')).map((r) => r.tuplesPerSec));
      for (const r of here) if (r.backend.startsWith('webgpu')) r.gpuOverCpu = r.tuplesPerSec / bestCpu;
      for (const r of here) out(format(r));
    }
  } finally {
    await releaseWebGpu();
  }
  if (!probed.webgpu) out('WebGPU/CPU ratio: n/a (no WebGPU adapter)');
  else if (!probed.webgpu.hardwareGpu) out(`WebGPU ran on a software adapter (${probed.webgpu.label}): a CPU behind the WebGPU API, so WebGPU/CPU says what the WebGPU path costs here, not what a GPU gives`);
  const ratios: Record<string, string | number> = {};
  for (const r of rows) if (r.gpuOverCpu !== null) ratios[`${r.n}²: ${r.backend} ÷ best CPU backend (tuples/s)`] = round(r.gpuOverCpu, 2);
  for (const r of rows) if (r.backend !== 'js (CPU bolt)') ratios[`${r.n}²: ${r.backend} ÷ CPU bolt (tuples/s)`] = round(r.vsCpuBolt ?? 0, 2);
  const dir = await writeReport({
    experiment: 'gpu-bolt',
    title: `GpuBolt matmul kernel per backend (${probed.webgpu ? probed.webgpu.label : 'no WebGPU adapter'}, webasm, cpu) vs the plain-JS CPU bolt`,
    command: `npm run bench -- gpu-bolt${args.quick ? ' --quick' : ''}`,
    rows: rows.map((r) => ({ ...r, kernelMsPerLaunch: round(r.kernelMsPerLaunch, 4), tuplesPerSec: round(r.tuplesPerSec, 1), vsCpuBolt: r.vsCpuBolt === null ? null : round(r.vsCpuBolt, 3), gpuOverCpu: r.gpuOverCpu === null ? null : round(r.gpuOverCpu, 3) })),
    plot: {
      width: 420,
      height: 260,
      title: `GpuBolt matmul throughput per backend, ${threads} CPU threads${probed.webgpu ? `, ${probed.webgpu.label}` : ', no WebGPU adapter'}`,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'n', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'matrix dimension n (n×n)' },
        y: { field: 'tuplesPerSec', type: 'quantitative', scale: { type: 'log' }, title: 'products per second (tuples/s)' },
        color: { field: 'backend', type: 'nominal', title: 'backend', legend: { labelLimit: 400 } },
      },
    } as ExperimentReport['plot'],
    backends: { webgpu: probed.webgpu ? probed.webgpu.label + (probed.webgpu.hardwareGpu ? ' — GPU' : ' — a CPU behind WebGPU, not a GPU') : `not run: ${probed.webgpuUnavailable}` },
    ratios,
    notes: [
      `machine: ${machineDescription()}; load average at end ${loadavg()}.`,
      'Kernel run directly (no topology): per launch of a batch of B items; the first launch (compilation) is not timed; every product is compared with the plain-JS one (maxAbsError).',
    ],
    quick: args.quick,
  });
  out(`report: ${dir}/summary.md`);
  if (args.json) {
    const adapter = probed.webgpu?.handle.adapter ?? null;
    process.stdout.write(`${JSON.stringify({ bench: 'gpu-bolt', threads, webgpu: adapter, webgpuUnavailable: probed.webgpuUnavailable, rows, ratios, dir })}\n`);
  }
}

function format(r: Row): string {
  const f = (x: number, d = 2) => x.toFixed(d);
  return [
    `n=${String(r.n).padStart(4)}`,
    r.backend.padEnd(24),
    `B=${String(r.batch).padStart(2)}`,
    `${f(r.kernelMsPerLaunch, 3).padStart(10)} ms/launch`,
    `${f(r.tuplesPerSec, 1).padStart(10)} tuples/s`,
    `×${f(r.vsCpuBolt ?? 0)} vs CPU bolt`,
    r.gpuOverCpu === null ? '' : `WebGPU/CPU ×${f(r.gpuOverCpu)}${r.hardwareGpu ? '' : ' (not a GPU)'}`,
    r.maxAbsError === null ? '' : `max err ${r.maxAbsError.toExponential(1)}`,
  ]
    .filter(Boolean)
    .join('  ');
}

function measure(minMs: number, fn: () => unknown): { calls: number; msPerCall: number } {
  const start = performance.now();
  let calls = 0;
  do {
    fn();
    calls++;
  } while (performance.now() - start < minMs);
  return { calls, msPerCall: (performance.now() - start) / calls };
}

async function measureAsync(minMs: number, fn: () => Promise<void>): Promise<{ calls: number; msPerCall: number }> {
  const start = performance.now();
  let calls = 0;
  do {
    await fn();
    calls++;
  } while (performance.now() - start < minMs);
  return { calls, msPerCall: (performance.now() - start) / calls };
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
