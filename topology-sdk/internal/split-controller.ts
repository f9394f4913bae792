/**
 * The math of the adaptive CPU/GPU split (H-Storm §2.2.2, DESIGN §8), free of
 * timers and I/O so it can be tested exactly:
 *   δ  = lat_cpu / (lat_cpu + lat_gpu)   — the GPU's share in proportion to its speed
 *   γ' = γ + θ × (δ − γ),  θ ∈ [0, 1]
 * plus the `capacity` policy (δ from executors ÷ mean service time per side)
 * and the window that turns the spout tasks' cumulative latency totals into
 * per-window averages.
 */

export type SplitPolicy = 'latency' | 'capacity';

/** Latency totals of one stream, cumulative since the reporting spout task started. */
export interface SideTotals {
  sumMs: number;
  count: number;
}

/** What one spout task reports to the controller: cumulative totals per stream. */
export interface TaskTotals {
  cpu: SideTotals;
  gpu: SideTotals;
}

/** How much one side can take: its executors and their mean service time per tuple. */
export interface SideCapacity {
  executors: number;
  meanServiceMs: number;
}

/** Rejects a θ the formula cannot use (the config schema rejects it earlier for config values). */
export function checkTheta(theta: number): void {
  if (!(theta >= 0 && theta <= 1)) throw new RangeError(`θ (hstorm.split.theta) must be in [0, 1], got ${theta}`);
}

/** δ from the window's mean complete latencies; null when a side has no samples (or both are 0). */
export function latencyDelta(latCpuMs: number | null, latGpuMs: number | null): number | null {
  if (latCpuMs === null || latGpuMs === null) return null;
  if (!(latCpuMs >= 0 && latGpuMs >= 0) || latCpuMs + latGpuMs <= 0) return null;
  return latCpuMs / (latCpuMs + latGpuMs);
}

/** δ = capacity_gpu / (capacity_cpu + capacity_gpu), capacity = executors ÷ mean service time. */
export function capacityDelta(cpu: SideCapacity | null, gpu: SideCapacity | null): number | null {
  const c = capacity(cpu);
  const g = capacity(gpu);
  if (c === null || g === null || c + g <= 0) return null;
  return g / (c + g);
}

function capacity(side: SideCapacity | null): number | null {
  if (!side || !(side.executors > 0) || !(side.meanServiceMs > 0)) return null;
  return side.executors / side.meanServiceMs;
}

/** γ' = γ + θ(δ − γ), clamped to [0, 1]; an unknown δ leaves γ as it is. */
export function stepGamma(gamma: number, theta: number, delta: number | null): number {
  checkTheta(theta);
  if (!Number.isFinite(gamma)) throw new RangeError(`γ must be a number in [0, 1], got ${gamma}`);
  const g = clamp01(gamma);
  if (delta === null || !Number.isFinite(delta)) return g;
  return clamp01(g + theta * (delta - g));
}

/** The paper's update (latency policy): a side without samples (null) leaves γ unchanged. */
export function nextGamma(gamma: number, theta: number, latCpuMs: number | null, latGpuMs: number | null): number {
  return stepGamma(gamma, theta, latencyDelta(latCpuMs, latGpuMs));
}

export interface WindowAverages {
  latCpuMs: number | null;
  latGpuMs: number | null;
  samplesCpu: number;
  samplesGpu: number;
}

/**
 * The controller's view of one window T. Spout tasks report cumulative totals
 * (so a report that is overwritten before the controller reads it loses
 * nothing: the next one contains it); this keeps the last totals seen per task
 * and adds up the differences. The first report of a task counts in full, and
 * a total that went down means the task restarted, so it counts from zero.
 * Means are over tuples, not over τ samples, so a busy task weighs more.
 */
export class LatencyWindow {
  private readonly last = new Map<number, TaskTotals>();
  private cpu: SideTotals = { sumMs: 0, count: 0 };
  private gpu: SideTotals = { sumMs: 0, count: 0 };

  observe(task: number, totals: TaskTotals): void {
    const prev = this.last.get(task);
    this.last.set(task, { cpu: { ...totals.cpu }, gpu: { ...totals.gpu } });
    addDiff(this.cpu, totals.cpu, prev?.cpu);
    addDiff(this.gpu, totals.gpu, prev?.gpu);
  }

  /** Forgets a task (it moved or went away); its next report counts in full. */
  forget(task: number): void {
    this.last.delete(task);
  }

  /** Ends the window: mean latency per side (null without samples); the next window starts empty. */
  close(): WindowAverages {
    const out: WindowAverages = {
      latCpuMs: this.cpu.count > 0 ? this.cpu.sumMs / this.cpu.count : null,
      latGpuMs: this.gpu.count > 0 ? this.gpu.sumMs / this.gpu.count : null,
      samplesCpu: this.cpu.count,
      samplesGpu: this.gpu.count,
    };
    this.cpu = { sumMs: 0, count: 0 };
    this.gpu = { sumMs: 0, count: 0 };
    return out;
  }
}

function addDiff(acc: SideTotals, now: SideTotals, prev: SideTotals | undefined): void {
  if (!prev || now.count < prev.count || now.sumMs < prev.sumMs) {
    acc.sumMs += now.sumMs;
    acc.count += now.count;
    return;
  }
  acc.sumMs += now.sumMs - prev.sumMs;
  acc.count += now.count - prev.count;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
