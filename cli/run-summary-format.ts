/**
 * The summary `hstorm local` prints, in words: the end-of-run table with a
 * line per window, state, split, GPU and user metrics under each component,
 * and the one-line progress display (run-summary.ts folds the heartbeats).
 */
import { isGpuBackend } from '../common/gpu-backends.js';
import type { ComponentGpuSummary } from '../common/metrics-rollup.js';
import type { ComponentStateStats } from '../common/state-rollup.js';
import type { ExecutorMetrics, SplitMetrics, WindowMetrics } from '../common/storm-base.js';
import { failedRun, type RunSummary } from './run-summary.js';
import type { WorkerCrash } from './worker-history.js';
import { formatUserMetrics } from './user-metrics-format.js';

/**
 * One line for the live progress display. It counts spout tuples only — emitted, acked, failed — so the three compare:
 * the bolts' emits are in the table at the end, and summed in with the spouts' they read as lost tuples.
 */
export function progressLine(s: RunSummary, elapsedSec: number): string {
  const split = splitLine(s);
  return (
    `${elapsedSec.toFixed(0)}s  workers ${s.workers}  spout tuples emitted ${s.spoutEmitted} acked ${s.acked} failed ${s.failed}  ` +
    `complete p50 ${s.completeLatencyMs.p50} ms p99 ${s.completeLatencyMs.p99} ms${split ? `  ${split}` : ''}`
  );
}

/** γ of the (first) split, for the progress line; null when the topology has none. */
function splitLine(s: RunSummary): string | null {
  for (const c of Object.values(s.components)) {
    const split = c.split && splitTotals(c.split);
    if (split) return `γ=${split.gamma.toFixed(3)}`;
  }
  return null;
}

interface SplitTotals {
  /** The controller task's γ (every task applies the one it publishes). */
  gamma: number;
  delta: number | null;
  latCpuMs: number | null;
  latGpuMs: number | null;
  windows: number;
  sentCpu: number;
  sentGpu: number;
  sides: SplitMetrics['sides'];
}

function splitTotals(tasks: readonly (ExecutorMetrics['split'] | undefined)[]): SplitTotals | null {
  const all = tasks.filter((t) => t !== undefined);
  const head = all.find((t) => t.controller) ?? all[0];
  if (!head) return null;
  return {
    gamma: head.gamma,
    delta: head.delta,
    latCpuMs: head.latCpuMs,
    latGpuMs: head.latGpuMs,
    windows: head.windows,
    sides: head.sides,
    sentCpu: all.reduce((n, t) => n + t.sentCpu, 0),
    sentGpu: all.reduce((n, t) => n + t.sentGpu, 0),
  };
}

/** The split line under a spout that splits between CPU and GPU bolts (DESIGN §8): γ, δ, the latencies it came from, what was sent. */
function formatSplit(tasks: readonly (ExecutorMetrics['split'] | undefined)[]): string[] {
  const t = splitTotals(tasks);
  if (!t) return [];
  const ms = (v: number | null) => (v === null ? 'none' : `${v.toFixed(2)} ms`);
  const share = t.sentCpu + t.sentGpu > 0 ? ` (${((100 * t.sentGpu) / (t.sentCpu + t.sentGpu)).toFixed(1)} % to GPU)` : '';
  const down = (['cpu', 'gpu'] as const).flatMap((side) => {
    const s = t.sides?.[side];
    return s && s.downSince !== null ? [`    ${side.toUpperCase()} side: no running task (${s.reason ?? 'unknown'}); its share went to the other side`] : [];
  });
  return [
    `    split: γ=${t.gamma.toFixed(3)} after ${t.windows} windows, δ=${t.delta === null ? 'none' : t.delta.toFixed(3)}, ` +
      `latency CPU ${ms(t.latCpuMs)} / GPU ${ms(t.latGpuMs)}; sent CPU ${t.sentCpu}, GPU ${t.sentGpu}${share}`,
    ...down,
  ];
}

/** The window line under a windowed bolt: its window, windows evaluated, their size, late tuples, what it still holds. */
export function formatWindow(tasks: readonly WindowMetrics[]): string {
  const sum = (f: (w: WindowMetrics) => number) => tasks.reduce((n, w) => n + f(w), 0);
  const windows = sum((w) => w.windows);
  const mean = windows > 0 ? (sum((w) => w.windowTuples) / windows).toFixed(1) : '-';
  const failed = sum((w) => w.failedWindows);
  const late = tasks[0]!.eventTime ? `, late tuples ${sum((w) => w.lateDropped)} dropped / ${sum((w) => w.lateRouted)} routed` : '';
  const lags = tasks.flatMap((w) => (w.watermarkLagMs === null ? [] : [w.watermarkLagMs]));
  const lag = lags.length > 0 ? `, watermark lag ${Math.max(...lags)} ms` : '';
  return (
    `    window: ${tasks[0]!.spec}; ${windows} windows${failed ? ` (${failed} failed)` : ''}, ` +
    `${mean} tuples each (max ${Math.max(...tasks.map((w) => w.maxWindowTuples))}), ${sum((w) => w.held)} held${late}${lag}`
  );
}

/** The state line under a stateful bolt or the checkpoint spout: transactions, checkpoint time, size, recoveries. */
export function formatState(s: ComponentStateStats): string {
  const cp = s.checkpointMs ? `, checkpoint p50 ${s.checkpointMs.p50} ms p99 ${s.checkpointMs.p99} ms` : '';
  const head = s.role === 'checkpoint' ? `    checkpoints (${s.provider}): ${s.phase ?? ''}` : `    state (${s.provider}): ${s.keys ?? '-'} keys, ${s.heldAcks} acks held`;
  const trouble = `${s.recoveries} recoveries, ${s.failures} failures${s.corruptEntries ? `, ${s.corruptEntries} corrupt entries left out` : ''}`;
  return `${head}; last committed ${s.lastCommittedTxid ?? '-'}, ${s.commits} commits${cp}; ${trouble}`;
}

/** The human-readable end-of-run summary. */
export function formatSummary(s: RunSummary): string {
  const restarted = s.incarnations > s.workers ? ` (${s.incarnations} worker processes: the counts include the ones that died)` : '';
  const lines = [
    `topology ${s.topology}: ${s.workers} workers${restarted}, ${s.durationSec} s`,
    `  spout tuples acked ${s.acked}, failed ${s.failed}, throughput ${s.throughputPerSec}/s, complete latency p50 ${s.completeLatencyMs.p50} ms, p99 ${s.completeLatencyMs.p99} ms`,
    ...Object.entries(s.system ?? {}).map(([id, c]) => `  system spout ${id} (not in the counts above): emitted ${c.emitted}, acked ${c.acked}, failed ${c.failed}`),
    ...(s.crashes ?? []).flatMap(formatCrash),
    `  ${'component'.padEnd(16)}${'executors'.padStart(10)}${'emitted'.padStart(12)}${'executed'.padStart(12)}${'acked'.padStart(12)}${'failed'.padStart(9)}${'exec p50 ms'.padStart(13)}${'exec p99 ms'.padStart(13)}${'capacity'.padStart(10)}`,
  ];
  for (const [id, c] of Object.entries(s.components)) {
    lines.push(
      `  ${id.padEnd(16)}${String(c.executors).padStart(10)}${String(c.emitted).padStart(12)}${String(c.executed).padStart(12)}${String(c.acked).padStart(12)}${String(c.failed).padStart(9)}${String(c.executeLatencyMs.p50).padStart(13)}${String(c.executeLatencyMs.p99).padStart(13)}${c.capacity.toFixed(2).padStart(10)}`,
    );
    if (c.split) lines.push(...formatSplit(c.split));
    if (c.gpu) lines.push(...formatGpu(c.gpu));
    if (c.window) lines.push(formatWindow(c.window));
    if (c.state) lines.push(formatState(c.state));
    if (c.userMetrics) lines.push(...formatUserMetrics(c.userMetrics, '    '));
    if (c.ticks) lines.push(`    tick tuples: ${c.ticks} (not in executed/acked)`);
  }
  if (s.droppedFrames > 0) lines.push(`  dropped frames/tuples: ${s.droppedFrames}`);
  const errors = Object.entries(s.components).filter(([, c]) => c.lastError);
  if (errors.length) {
    lines.push('  last error per component:');
    for (const [id, c] of errors) {
      const e = c.lastError!;
      const [head, ...stack] = e.error.split('\n');
      lines.push(`    ${id} (task ${e.task} on ${e.host}:${e.port}, ${new Date(e.time).toISOString()}): ${head}`);
      for (const frame of stack.slice(0, 3)) lines.push(`      ${frame.trim()}`);
    }
  }
  if (s.workerLog && (s.workerLog.errors > 0 || s.workerLog.warnings > 0)) {
    lines.push(`  worker log: ${s.workerLog.errors} error and ${s.workerLog.warnings} warning lines`);
  }
  if (s.logsDir) lines.push(`  worker logs kept in ${s.logsDir}`);
  else if (failedRun(s)) lines.push('  the worker logs went with the run; run it again with --keep-logs DIR to keep them');
  return lines.join('\n');
}

/** A worker that died during the run: how, how often, what it ran, its last error. */
function formatCrash(c: WorkerCrash): string[] {
  const how = c.lastExit.signal !== null ? `killed by ${c.lastExit.signal}` : `exit code ${c.lastExit.code ?? 'unknown'}`;
  const lines = [
    `  worker ${c.host}:${c.port} (${c.components.join(', ') || 'no executors'}) crashed ${c.deaths === 1 ? 'once' : `${c.deaths} times`}, last ${how}, and was restarted; ` +
      'the counts include each of its processes up to its last heartbeat',
  ];
  if (c.lastError) lines.push(`    its last error: ${c.lastError.split('\n')[0]}`);
  return lines;
}

/** The GPU lines under a component: what ran (a software adapter and a CPU backend named as such), kernel cost, trouble. */
function formatGpu(g: ComponentGpuSummary): string[] {
  const kinds = g.ran.length ? g.ran.map((b) => (b.startsWith('webgpu (software') ? `${b}, not a GPU` : `${b} (${isGpuBackend(b.split(' ')[0]!) ? 'GPU' : 'CPU'} backend)`)).join(', ') : 'no launch yet';
  const lines = [`    backend: ${kinds}${g.fallback ? ` — fell back: ${g.fallbackReasons.join('; ')}` : ''}`];
  if (g.launches > 0) {
    lines.push(
      `    kernel per launch p50 ${g.kernelMs.p50} ms, p99 ${g.kernelMs.p99} ms; per tuple in flight p50 ${g.inFlightMs.p50} ms, p99 ${g.inFlightMs.p99} ms; ${g.launches} launches` +
        (g.failedLaunches ? `, ${g.failedLaunches} failed` : ''),
    );
  }
  for (const a of g.adapters) if (!a.identityVerified) lines.push(`    GPU identity not verified: ${a.identity}`);
  if (g.devicesLost || g.deviceErrors) lines.push(`    WebGPU trouble: ${g.devicesLost} device(s) lost, ${g.deviceErrors} error(s) caught in launches`);
  return lines;
}
