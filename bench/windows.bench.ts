/**
 * `npm run bench -- windows [--quick] [--json]` — windowed bolts (issue 23),
 * side by side in one run, in local mode with real worker processes and
 * acking on throughout:
 *
 * (a) what windowing costs: tumbling windows of 100 tuples summed by a
 *     WindowedBolt against a hand-written buffer bolt doing the same sum with
 *     the same anchoring and acking (bench/topologies/window-sum.ts), runs
 *     alternating; target: the windowed bolt within 1.2× of the buffer bolt's
 *     throughput.
 * (b) the sliding covariance (64 readings every 16; examples/sliding-covariance)
 *     on GpuWindowedBolt (one launch per window) against a per-tuple GpuBolt
 *     (one outer product per reading, batched as GpuBolt batches, summed per
 *     window on the CPU) and the plain-JS WindowedBolt, on every gpu.js
 *     backend this process can run: webasm always, WebGPU when an adapter
 *     answers (run under `node=$(bash scripts/webgpu-runtime.sh --software-adapter)`
 *     to include the software adapter here — labelled as such: it is a CPU
 *     behind the WebGPU API, never a GPU).
 *
 * Throughput is acked spout tuples per second in steady state; windows per
 * second are readings ÷ 16 in (b). `npm run bench -- windows a` (or `b`)
 * runs one part alone.
 */
import { join } from 'node:path';
import { PACKAGE_ROOT, runLocal } from '../cli/local-run.js';
import { sampleChildCpu } from './support/child-cpu.js';
import { releaseWebGpu } from '../worker/index.js';
import type { BenchArgs } from './main.js';
import { benchBackends } from './support/gpu-backends.js';
import { BenchProgress } from './support/progress.js';
import { machineDescription, writeReport, type ExperimentReport, type Row } from './support/results.js';
import { backendLabel, backendShort, DECLARED_GPU, loadavg, round, runTopology } from './support/topology-runs.js';

const WINDOW_SUM = join(PACKAGE_ROOT, 'dist', 'bench', 'topologies', 'window-sum.js');
const COVARIANCE = join(PACKAGE_ROOT, 'dist', 'bench', 'topologies', 'covariance-variants.js');
/** Issue 23's target: the windowed bolt's throughput at least 1 / 1.2 of the hand-written one's. */
const TARGET = 1 / 1.2;
const SLIDE = 16;

/**
 * Part (a)'s run: steady-state throughput as runTopology measures it, and CPU per acked tuple of all worker
 * processes over the same span — which moves much less than throughput when other jobs share the machine.
 */
async function sumRun(impl: 'windowed' | 'buffer', seconds: number): Promise<{ throughput: number; cpuUsPerTuple: number | null; p50: number; failed: number }> {
  const samples: { t: number; acked: number; cpu: Map<number, number> | null }[] = [];
  const summary = await runLocal({
    module: WINDOW_SUM,
    durationSec: seconds,
    overrides: { 'bench.window.impl': impl, 'bench.window.count': 100 },
    clusterConfig: DECLARED_GPU,
    drainSec: 3,
    onProgress: (s, t) => samples.push({ t, acked: s.acked, cpu: sampleChildCpu() }),
  });
  const warm = samples.find((x) => x.acked > 0);
  const last = samples[samples.length - 1];
  if (!warm || !last || last.t - warm.t < 1) return { throughput: 0, cpuUsPerTuple: null, p50: summary.completeLatencyMs.p50, failed: summary.failed };
  const tuples = last.acked - warm.acked;
  let cpuMs = 0;
  for (const [pid, ms] of last.cpu ?? []) cpuMs += ms - (warm.cpu?.get(pid) ?? ms);
  return {
    throughput: round(tuples / (last.t - warm.t), 1),
    cpuUsPerTuple: warm.cpu && tuples > 0 ? round((cpuMs * 1000) / tuples, 3) : null,
    p50: summary.completeLatencyMs.p50,
    failed: summary.failed,
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function run(args: BenchArgs): Promise<void> {
  const parts = args.rest.includes('a') || args.rest.includes('b') ? args.rest : ['a', 'b'];
  const reps = !parts.includes('a') ? 0 : args.quick ? 1 : 3;
  const secondsA = args.quick ? 6 : 15;
  const secondsB = args.quick ? 6 : 12;
  const load = loadavg();
  const probed = await benchBackends({ cpu: false });
  // The topologies run in worker processes; this process only learns which backends the node it runs under offers.
  await releaseWebGpu();
  const kernelBackends = parts.includes('b') ? probed.list.map((b) => ({ name: b.name, label: b.label, hardwareGpu: b.hardwareGpu })) : [];
  const bar = new BenchProgress('windows', reps * 2 + (parts.includes('b') ? 1 : 0) + 2 * kernelBackends.length, !args.json);
  const rows: Row[] = [];
  const backends: Record<string, string> = {};

  // (a) Alternating, so a burst of other work on the machine falls on both sides alike.
  for (let rep = 1; rep <= reps; rep++) {
    for (const impl of rep % 2 ? (['buffer', 'windowed'] as const) : (['windowed', 'buffer'] as const)) {
      bar.step(`(a) ${impl} bolt, run ${rep}/${reps}`);
      const r = await sumRun(impl, secondsA);
      rows.push({
        part: 'a',
        variant: impl === 'windowed' ? 'WindowedBolt (tumbling Count.of(100))' : 'hand-written buffer bolt',
        backend: 'js',
        rep,
        throughputPerSec: r.throughput,
        cpuUsPerTuple: r.cpuUsPerTuple,
        windowsPerSec: round(r.throughput / 100, 1),
        completeLatencyP50Ms: r.p50,
        failed: r.failed,
      });
    }
  }
  const of = (v: string, field: string) => rows.filter((r) => r.part === 'a' && String(r.variant).startsWith(v) && typeof r[field] === 'number').map((r) => r[field] as number);
  const ratioA = median(of('WindowedBolt', 'throughputPerSec')) / median(of('hand-written', 'throughputPerSec'));
  const cpuA = of('WindowedBolt', 'cpuUsPerTuple').length && of('hand-written', 'cpuUsPerTuple').length ? median(of('WindowedBolt', 'cpuUsPerTuple')) / median(of('hand-written', 'cpuUsPerTuple')) : null;

  // (b)
  const cases: { impl: 'cpu-windowed' | 'gpu-windowed' | 'gpu-per-tuple'; backend: (typeof kernelBackends)[number] | null }[] = [
    ...(parts.includes('b') ? [{ impl: 'cpu-windowed' as const, backend: null }] : []),
    ...kernelBackends.flatMap((be) => [
      { impl: 'gpu-windowed' as const, backend: be },
      { impl: 'gpu-per-tuple' as const, backend: be },
    ]),
  ];
  for (const c of cases) {
    const on = c.backend ? ` on ${c.backend.label}` : '';
    bar.step(`(b) ${c.impl}${on}`);
    const r = await runTopology(COVARIANCE, { 'bench.cov.impl': c.impl, ...(c.backend && { 'bench.cov.backend': c.backend.name }) }, secondsB);
    const kernelComponent = c.impl === 'gpu-per-tuple' ? 'outer' : 'covariance';
    const ran = c.backend ? backendShort(r.summary, kernelComponent) : 'js';
    if (c.backend) backends[`${c.impl} (${kernelComponent}), asked ${c.backend.name}`] = backendLabel(r.summary, kernelComponent);
    const name = { 'cpu-windowed': 'WindowedBolt, plain JS (CPU)', 'gpu-windowed': 'GpuWindowedBolt (a launch per window)', 'gpu-per-tuple': 'GpuBolt per tuple + JS window sum' }[c.impl];
    const launches = r.summary.components[kernelComponent]?.gpu?.launches ?? null;
    rows.push({
      part: 'b',
      variant: name,
      backend: ran,
      series: c.backend ? `${name} on ${ran === 'webgpu-sw' ? 'webgpu (software adapter, not a GPU)' : ran}` : name,
      rep: 1,
      throughputPerSec: r.throughput,
      windowsPerSec: round(r.throughput / SLIDE, 1),
      completeLatencyP50Ms: r.completeP50Ms,
      failed: r.failed,
      launches,
      readingsPerLaunch: launches ? round(r.acked / launches, 1) : null,
    });
  }
  bar.stop();

  const b = rows.filter((r) => r.part === 'b');
  const cpu = (b.find((r) => r.variant === 'WindowedBolt, plain JS (CPU)')?.throughputPerSec as number | undefined) ?? 0;
  const ratios: Record<string, number | string> = {};
  if (reps > 0) {
    ratios['(a) WindowedBolt ÷ hand-written buffer bolt, throughput (median of runs)'] = round(ratioA, 3);
    ratios['(a) target (issue 23): ≥ 1 / 1.2 = 0.833'] = ratioA >= TARGET ? 'met' : 'not met';
    if (cpuA !== null) ratios['(a) CPU per acked tuple, all workers: WindowedBolt ÷ buffer bolt (median of runs)'] = round(cpuA, 3);
  }
  for (const r of b) if (r.variant !== 'WindowedBolt, plain JS (CPU)') ratios[`(b) ${String(r.series)} ÷ plain-JS WindowedBolt, throughput`] = round((r.throughputPerSec as number) / cpu, 3);
  for (const be of kernelBackends) {
    const w = b.find((r) => r.variant === 'GpuWindowedBolt (a launch per window)' && String(r.series).includes(be.name));
    const t = b.find((r) => r.variant === 'GpuBolt per tuple + JS window sum' && String(r.series).includes(be.name));
    if (w && t) ratios[`(b) on ${be.label}: GpuWindowedBolt ÷ per-tuple GpuBolt, throughput`] = round((w.throughputPerSec as number) / (t.throughputPerSec as number), 3);
  }
  const onGpu = kernelBackends.some((k) => k.hardwareGpu);
  const dir = await writeReport({
    experiment: 'windows',
    title: 'Windowed bolts: (a) WindowedBolt vs a hand-written buffer bolt; (b) sliding covariance on GpuWindowedBolt vs per-tuple GpuBolt vs plain-JS WindowedBolt',
    command: `npm run bench -- windows${args.quick ? ' --quick' : ''}`,
    rows,
    plot: {
      hconcat: [
        {
          title: '(a) tumbling sums of 100 tuples',
          width: 200,
          height: 220,
          transform: [{ filter: "datum.part === 'a'" }],
          mark: { type: 'point', filled: true, size: 80 },
          encoding: {
            x: { field: 'variant', type: 'nominal', title: null, axis: { labelAngle: 0, labelLimit: 0, labelExpr: "split(datum.label, ' (')" } },
            y: { field: 'throughputPerSec', type: 'quantitative', title: 'acked tuples/s (each run)', scale: { zero: true } },
          },
        },
        {
          title: '(b) sliding covariance, 64 readings every 16',
          width: 320,
          height: 220,
          transform: [{ filter: "datum.part === 'b'" }],
          mark: 'bar',
          encoding: {
            y: { field: 'series', type: 'nominal', title: null, axis: { labelLimit: 0 } },
            x: { field: 'throughputPerSec', type: 'quantitative', title: 'acked readings/s' },
          },
        },
      ],
    } as ExperimentReport['plot'],
    backends: Object.keys(backends).length ? backends : { kernels: 'none ran' },
    ratios,
    notes: [
      `machine: ${machineDescription()}; load average at start ${load}, at end ${loadavg()} (the machine is shared: short runs are noisy; (a) alternates its runs and takes medians).`,
      `Each case is a topology in local mode: 2 worker processes, acking on (one acker per worker), max spout pending 2000 in (a) and 1000 in (b); (a) runs ${secondsA} s × ${reps} per bolt, (b) ${secondsB} s per case; throughput is acked spout tuples/s after the first second with acks.`,
      probed.webgpu
        ? probed.webgpu.hardwareGpu
          ? `WebGPU ran on ${probed.webgpu.label}, a GPU.`
          : `WebGPU ran on ${probed.webgpu.label}: Mesa's software Vulkan driver, a CPU behind the WebGPU API — its rows measure the WebGPU path on a CPU, not a GPU.`
        : `WebGPU did not run: ${probed.webgpuUnavailable}.`,
      onGpu ? 'A GPU ran the kernels in the rows marked webgpu.' : 'No GPU here: every kernel ran on a CPU (webasm: SIMD + threads; webgpu-sw: lavapipe). The GPU-vs-CPU ratios are what the batching shape gives on a CPU, not a GPU speed-up.',
      '(b) per-tuple GpuBolt: one outer product (9×9) per reading, launched in batches of topology.gpu.batch.size (16) readings, summed per window by a plain-JS WindowedBolt; GpuWindowedBolt: one launch per window of 64 rows. Results of the three are the same matrices (examples/sliding-covariance checks them window by window).',
    ],
    quick: args.quick,
  });

  if (args.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'windows', rows, ratios, dir })}\n`);
    return;
  }
  if (reps > 0) process.stdout.write(`windows: (a) WindowedBolt ÷ buffer bolt = ${round(ratioA, 3)} (target ≥ ${round(TARGET, 3)}: ${ratioA >= TARGET ? 'met' : 'not met'})\n`);
  if (cpuA !== null) process.stdout.write(`  CPU per acked tuple: WindowedBolt ÷ buffer bolt = ${round(cpuA, 3)}\n`);
  for (const r of rows.filter((x) => x.part === 'a')) process.stdout.write(`  (a) ${String(r.variant).padEnd(40)} run ${String(r.rep)}  ${String(r.throughputPerSec).padStart(9)}/s  ${String(r.cpuUsPerTuple)} µs CPU/tuple  p50 ${String(r.completeLatencyP50Ms)} ms\n`);
  for (const r of b) process.stdout.write(`  (b) ${String(r.series).padEnd(72)} ${String(r.throughputPerSec).padStart(9)} readings/s  ${String(r.windowsPerSec).padStart(8)} windows/s  p50 ${String(r.completeLatencyP50Ms)} ms\n`);
  process.stdout.write(`report: ${dir}/summary.md\n`);
}
