/**
 * The gpu.js backends a benchmark compares in one run: WebGPU when an
 * adapter answers (a GPU, or a software adapter — labelled as such, never as
 * a GPU), webasm (SIMD + threads) and, where asked, plain cpu. When WebGPU
 * cannot run, the reason says why and how to get it on this machine.
 */
import { availableParallelism } from 'node:os';
import type { GpuBackendHandle, GpuBackendName } from '../../topology-sdk/gpu-backend-handle.js';
import { selectGpuBackend } from '../../worker/index.js';
import { webgpuLabel } from '../../common/webgpu-adapter.js';

export interface BenchBackend {
  name: GpuBackendName;
  /** "webgpu (NVIDIA H100 …)", "webgpu (software adapter: llvmpipe …)", "webasm", "cpu". */
  label: string;
  /** A real GPU ran it (not a CPU backend, not a software adapter). */
  hardwareGpu: boolean;
  handle: GpuBackendHandle;
}

export interface BenchBackends {
  list: BenchBackend[];
  webgpu: BenchBackend | null;
  /** Why there is no WebGPU backend, with the way to get one; null when there is. */
  webgpuUnavailable: string | null;
}

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export async function benchBackends(opts: { cpu: boolean; threads?: number }): Promise<BenchBackends> {
  const threads = opts.threads ?? availableParallelism();
  const list: BenchBackend[] = [];
  const sel = await selectGpuBackend({ gpu: null, forced: 'webgpu', log: silent, probeTimeoutMs: 5000 });
  let webgpu: BenchBackend | null = null;
  if (sel.backend === 'webgpu') {
    webgpu = { name: 'webgpu', label: webgpuLabel(sel.adapter), hardwareGpu: sel.adapter?.software === false, handle: { ...sel, cpuThreads: () => threads } };
    list.push(webgpu);
  }
  for (const name of opts.cpu ? (['webasm', 'cpu'] as const) : (['webasm'] as const)) {
    const s = await selectGpuBackend({ gpu: null, forced: name, log: silent });
    list.push({ name, label: s.backend, hardwareGpu: false, handle: { ...s, cpuThreads: () => threads } });
  }
  return { list, webgpu, webgpuUnavailable: webgpu ? null : withHint(sel.fallbackReason ?? 'no WebGPU adapter') };
}

/** Where Dawn does not load (glibc < 2.38), the command that runs the benchmark with WebGPU anyway. */
function withHint(why: string): string {
  if (!/does not load/.test(why)) return why;
  const bench = process.argv.slice(2).join(' ');
  return `${why} — to include it: node=$(bash scripts/webgpu-runtime.sh --software-adapter) && "$node" dist/bench/main.js ${bench}`;
}
