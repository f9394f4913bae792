/**
 * `npm run bench -- gpu-bolt [--quick] [--json]`: the GpuBolt matmul kernel
 * run directly (no topology) on every backend this machine has — WebGPU when
 * an adapter answers, webasm (SIMD + threads), cpu — beside the CPU bolt's
 * plain-JS product, for n = 64, 256, 512, 1024. Prints, per size and backend,
 * the backend that actually ran, kernel time per launch, tuples/s, and the
 * ratios GPU/CPU (vs the best CPU backend) and vs the CPU bolt. When WebGPU
 * cannot run it says so and why.
 */
import { availableParallelism } from 'node:os';
import { GpuKernelRunner } from '../topology-sdk/gpu-kernel-runner.js';
import type { GpuBackendHandle, GpuBackendName } from '../topology-sdk/gpu-backend-handle.js';
import { releaseWebGpu, selectGpuBackend, type GpuBackendSelection } from '../worker/gpu-backend.js';
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
  /** GPU rows: throughput ÷ the best CPU backend's at the same n. */
  gpuOverCpu: number | null;
  maxAbsError: number | null;
}

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Items per launch: small matrices batch along z, large ones fill a launch alone. */
function batchFor(n: number): number {
  return n <= 64 ? 16 : n <= 256 ? 4 : 1;
}

function handleOf(sel: GpuBackendSelection, threads: number): GpuBackendHandle {
  return { ...sel, cpuThreads: () => threads };
}

export async function run(args: Pick<BenchArgs, 'quick' | 'json'>): Promise<void> {
  const sizes = args.quick ? [64, 256] : [64, 256, 512, 1024];
  const minMs = args.quick ? 300 : 2000;
  const threads = availableParallelism();
  const out = (line: string) => {
    if (!args.json) process.stdout.write(`${line}\n`);
  };

  const webgpu = await selectGpuBackend({ gpu: null, forced: 'webgpu', log: silent, probeTimeoutMs: 5000 });
  const backends: { name: GpuBackendName; handle: GpuBackendHandle }[] = [];
  if (webgpu.backend === 'webgpu') backends.push({ name: 'webgpu', handle: handleOf(webgpu, threads) });
  else out(`webgpu unavailable: ${webgpu.fallbackReason ?? 'no adapter'}`);
  backends.push({ name: 'webasm', handle: handleOf(await selectGpuBackend({ gpu: null, forced: 'webasm', log: silent }), threads) });
  backends.push({ name: 'cpu', handle: handleOf(await selectGpuBackend({ gpu: null, forced: 'cpu', log: silent }), threads) });
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
      rows.push({ n, backend: 'js (CPU bolt)', batch: 1, launches: js.calls, kernelMsPerLaunch: js.msPerCall, tuplesPerSec: jsRate, vsCpuBolt: 1, gpuOverCpu: null, maxAbsError: 0 });

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
          rows.push({
            n,
            backend: runner.backend ?? b.name,
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
      for (const r of here) if (r.backend === 'webgpu' || r.backend === 'headlessgl') r.gpuOverCpu = r.tuplesPerSec / bestCpu;
      for (const r of here) out(format(r));
    }
  } finally {
    await releaseWebGpu();
  }
  if (!backends.some((b) => b.name === 'webgpu')) out('GPU/CPU ratio: n/a (no GPU backend ran)');
  if (args.json) process.stdout.write(`${JSON.stringify({ bench: 'gpu-bolt', threads, webgpu: webgpu.backend === 'webgpu' ? webgpu.device : null, webgpuUnavailable: webgpu.backend === 'webgpu' ? null : webgpu.fallbackReason, rows })}\n`);
}

function format(r: Row): string {
  const f = (x: number, d = 2) => x.toFixed(d);
  return [
    `n=${String(r.n).padStart(4)}`,
    r.backend.padEnd(14),
    `B=${String(r.batch).padStart(2)}`,
    `${f(r.kernelMsPerLaunch, 3).padStart(10)} ms/launch`,
    `${f(r.tuplesPerSec, 1).padStart(10)} tuples/s`,
    `×${f(r.vsCpuBolt ?? 0)} vs CPU bolt`,
    r.gpuOverCpu === null ? '' : `GPU/CPU ×${f(r.gpuOverCpu)}`,
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
