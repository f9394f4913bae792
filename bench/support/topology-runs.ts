/**
 * What the matmul experiments (topology-throughput, hybrid-vs-single) share:
 * run an example topology in local mode for a while and read its steady-state
 * throughput, complete latency and the backend each GPU bolt actually ran on.
 *
 * The local cluster gets GPUs declared in config (`supervisor.gpus`): a
 * `.gpu()` component needs a GPU slot to be placed. Discovery tries
 * nvidia-smi and WebGPU first, so on a GPU machine the real GPU is used and
 * the declared one ignored; on a machine without one the declared GPU's
 * kernels run on a CPU backend, and the backend label says so.
 */
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg as osLoadavg } from 'node:os';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import type { RunSummary } from '../../cli/run-summary.js';
import { writeMatrixFile } from '../../examples/matmul/matrix-file.js';

export const EXAMPLES = {
  gpu: join(PACKAGE_ROOT, 'examples/matmul'),
  cpu: join(PACKAGE_ROOT, 'examples/matmul/cpu.ts'),
  hybrid: join(PACKAGE_ROOT, 'examples/hybrid-matmul'),
};

/** One declared GPU with enough slots for any worker count the benchmarks use. */
export const DECLARED_GPU = {
  'supervisor.gpus': [{ id: 'declared0', name: 'declared GPU (no device on this machine)', smCount: 10, clockMHz: 1500, memoryMB: 16384, computeCapability: '6.1', slots: 16 }],
};

export interface TopologyRun {
  /** Acked spout tuples per second in steady state (after the first second with acks). */
  throughput: number;
  completeP50Ms: number;
  completeMeanMs: number;
  acked: number;
  failed: number;
  summary: RunSummary;
}

/**
 * Steady-state throughput: acked tuples between the first progress sample
 * with acks (warm-up — worker start, kernel compilation — excluded) and the
 * last; when that window saw too few acks to be a rate (a 1024² CPU run),
 * acked over the whole run.
 */
export async function runTopology(module: string, overrides: Record<string, unknown>, seconds: number, drainSec = 3): Promise<TopologyRun> {
  const samples: { t: number; acked: number }[] = [];
  const summary = await runLocal({
    module,
    durationSec: seconds,
    overrides,
    clusterConfig: DECLARED_GPU,
    drainSec,
    onProgress: (s, t) => samples.push({ t, acked: s.acked }),
  });
  const warm = samples.find((s) => s.acked > 0);
  const last = samples[samples.length - 1];
  let throughput = summary.durationSec > 0 ? summary.acked / summary.durationSec : 0;
  if (warm && last && last.t - warm.t >= 1 && last.acked - warm.acked >= 5) throughput = (last.acked - warm.acked) / (last.t - warm.t);
  return {
    throughput: round(throughput, 1),
    completeP50Ms: summary.completeLatencyMs.p50,
    completeMeanMs: round(summary.completeLatencyMs.mean, 2),
    acked: summary.acked,
    failed: summary.failed,
    summary,
  };
}

/** "webasm — CPU backend (fallback: …)", "webgpu (NVIDIA …) — GPU", "webgpu (software adapter: …) — not a GPU": never calls a CPU run a GPU run. */
export function backendLabel(s: RunSummary, component: string): string {
  const g = s.components[component]?.gpu;
  if (!g) return 'plain JavaScript (CPU bolt)';
  const kinds = g.ran.map((b) => (b.startsWith('webgpu (software') ? `${b} — a CPU behind WebGPU, not a GPU` : b.startsWith('webgpu') || b === 'headlessgl' ? `${b} — GPU` : `${b} — CPU backend`));
  return `${kinds.join(', ')}${g.fallback ? ` (fallback: ${g.fallbackReasons.join('; ')})` : ''}`;
}

/** Short form for CSV cells: the backend names ("webgpu-sw" for a software adapter), "+fallback" when one fell back. */
export function backendShort(s: RunSummary, component: string): string {
  const g = s.components[component]?.gpu;
  if (!g) return 'js';
  return `${g.ran.map((b) => (b.startsWith('webgpu (software') ? 'webgpu-sw' : b.split(' ')[0]!)).join('+')}${g.fallback ? ' (fallback)' : ''}`;
}

/** A matrix file of `count` pairs of n×n under `dir`, written once and reused across runs. */
export function matrixFile(dir: string, n: number, count: number): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `m${n}x${count}.bin`);
  if (!existsSync(path)) writeMatrixFile({ n, count, out: path, seed: n });
  return path;
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** "1.2 / 0.9 / 0.7": the machine is shared, and a report should say how busy it was. */
export function loadavg(): string {
  return osLoadavg().map((x) => x.toFixed(1)).join(' / ');
}
