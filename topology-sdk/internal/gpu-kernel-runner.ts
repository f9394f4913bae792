/**
 * Runs one GpuBolt kernel on the backend the worker selected, with no
 * topology around it (GpuBolt drives it; the benchmark calls it directly).
 *
 * - Every call is asynchronous: GPU kernels are awaited, CPU kernels run in
 *   gpu.js async mode, where webasm splits them over worker threads — kernel
 *   work never holds the event loop (heartbeats, acks, transport) for long.
 * - The backend reported is the one that ran, read from the kernel
 *   (`kernel.kernel.constructor.mode`), never the one asked for; before the
 *   first launch none is reported as having run.
 * - WebGPU launches run inside the device's error scopes (an error there
 *   fails the launch instead of resolving wrong data). After a lost device
 *   the kernel is rebuilt on a fresh one; a kernel a GPU backend cannot run
 *   otherwise is rebuilt once on the CPU backend. Each is logged and reported.
 * - Busy time (at least one launch in flight) is tracked for the task's
 *   capacity: a GPU bolt's execute only gathers tuples, the work is here.
 */
import type { IGPUKernelSettings, IKernelFunctionThis, IKernelRunShortcut } from 'gpu.js';
import type { GpuMetrics } from '../../common/storm-base.js';
import { Histogram } from '../../common/histogram.js';
import type { ComponentLogger } from '../context.js';
import { isGpuBackend, type GpuBackendHandle, type GpuBackendName } from '../gpu-backend-handle.js';
import { BatchInputs, BatchResult, launchShape, type ItemShape } from './gpu-batch.js';
import { loadGpuJs, type GpuJsModule } from './gpu-js.js';

/** Rebuilds on a fresh device after device losses within REBUILD_WINDOW_MS, before giving up on WebGPU for this task. */
const MAX_DEVICE_REBUILDS = 3;
const REBUILD_WINDOW_MS = 60_000;

/** Constants a kernel reads as `this.constants.<name>`. */
export type KernelConstants = Record<string, number>;

/**
 * The kernel, written once for every backend. `this.thread.x/y` index the
 * item's output, the last thread dimension the item in the batch (see gpu-batch.ts).
 * Arguments are whatever `toInputs` returns (typically `batch.pack(...)` inputs).
 */
export interface KernelSpec {
  /** Any `function (this: IKernelFunctionThis<{ ...constants }>, ...args) { ... }` (a `function`, not an arrow: gpu.js compiles its source). */
  fn: (this: IKernelFunctionThis<never>, ...args: never[]) => number;
  /** Output shape of one item. */
  output: ItemShape;
  constants?: KernelConstants;
  /** gpu.js refuses loops longer than this (default 1000): set it when a loop bound is a large constant. */
  loopMaxIterations?: number;
}

export class GpuKernelRunner {
  private kernelFn: IKernelRunShortcut | null = null;
  private building: Promise<IKernelRunShortcut> | null = null;
  /** Bumped when the kernel is rebuilt (on another backend or a fresh device). */
  private generation = 0;
  private mode: GpuBackendName;
  private ran: string | null = null;
  /** Every backend that ran a launch, in order (a task rebuilt on the CPU after a GPU failure ran on both). */
  private readonly ranBackends: string[] = [];
  private fallbackReason: string | null;
  private readonly kernelMs = new Histogram();
  private readonly inFlightMs = new Histogram();
  private launches = 0;
  private failedLaunches = 0;
  private tuples = 0;
  private fillSum = 0;
  private lastDone = 0;
  private launchedSinceBuild = 0;
  private rateStart = performance.now();
  private rateCount = 0;
  private rate = 0;
  private active = 0;
  private busySince = 0;
  private busyTotal = 0;
  private lostSeen = 0;
  /** When the kernel was rebuilt after a lost device (within the last REBUILD_WINDOW_MS). */
  private rebuilds: number[] = [];

  private constructor(
    private readonly gpujs: GpuJsModule,
    readonly spec: KernelSpec,
    readonly batchSize: number,
    readonly handle: GpuBackendHandle,
    private readonly log: ComponentLogger | null,
  ) {
    this.mode = handle.backend;
    this.fallbackReason = handle.fallbackReason;
  }

  /** Loads gpu.js (once per process) and prepares a runner; the kernel itself is built on the first launch. */
  static async create(spec: KernelSpec, batchSize: number, handle: GpuBackendHandle, log: ComponentLogger | null = null): Promise<GpuKernelRunner> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`the GPU batch size must be an integer ≥ 1, got ${batchSize}`);
    return new GpuKernelRunner(await loadGpuJs(), spec, batchSize, handle, log);
  }

  /** A packer for this runner's batch size. */
  batchInputs(): BatchInputs {
    return new BatchInputs(this.batchSize, (value, size) => new this.gpujs.Input(value as unknown as number[], size as [number, number]));
  }

  /** The backend that actually ran the last launch (null before the first). */
  get backend(): string | null {
    return this.ran;
  }

  /** Runs one launch of `count` real items (the rest of the batch is padding). */
  async run(args: readonly unknown[], count: number): Promise<BatchResult> {
    const calledAt = performance.now();
    const generation = this.generation;
    if (this.active++ === 0) this.busySince = calledAt;
    let ran: { kernel: IKernelRunShortcut; raw: unknown };
    try {
      try {
        ran = await this.attempt(args);
      } catch (err) {
        // Unless another launch already rebuilt the kernel, a GPU failure (building or running) rebuilds it.
        if (generation === this.generation) {
          if (!isGpuBackend(this.mode)) throw err;
          this.recover(err);
        }
        ran = await this.attempt(args);
      }
    } finally {
      if (--this.active === 0) this.busyTotal += performance.now() - this.busySince;
    }
    const { kernel, raw } = ran;
    this.noteBackend(kernel);
    const done = performance.now();
    // gpu.js compiles a kernel in its first launch: that one says nothing about the kernel's speed.
    // Later launches queue behind each other on one device: charge each only for its own time.
    if (this.launchedSinceBuild++ > 0) this.kernelMs.record(done - Math.max(calledAt, this.lastDone));
    this.lastDone = done;
    this.launches++;
    this.tuples += count;
    this.fillSum += count / this.batchSize;
    this.rateCount += count;
    if (done - this.rateStart >= 1000) this.rollRate(done);
    return new BatchResult(raw, count, this.spec.output);
  }

  /** A tuple of a launch was acked `ms` after it entered the bolt. */
  tupleDone(ms: number): void {
    this.inFlightMs.record(ms);
  }

  /** A launch (or turning its result into tuples) failed; its tuples were failed. */
  launchFailed(): void {
    this.failedLaunches++;
  }

  /** Cumulative ms with at least one launch in flight. */
  busyMs(now = performance.now()): number {
    return this.busyTotal + (this.active > 0 ? now - this.busySince : 0);
  }

  metrics(): GpuMetrics {
    const now = performance.now();
    if (now - this.rateStart >= 2000) this.rollRate(now);
    // Report what ran; before the first launch, only what was selected (and a fallback the probe already decided).
    const ran = this.ran;
    const effective = ran ?? this.mode;
    const fallback = effective !== this.handle.requested;
    return {
      backend: ran,
      selectedBackend: this.mode,
      requestedBackend: this.handle.requested,
      fallback,
      fallbackReason: fallback ? (this.fallbackReason ?? `gpu.js ran the kernel on ${effective}`) : null,
      device: ran !== null && isGpuBackend(ran) ? this.handle.device : null,
      adapter: this.ranBackends.includes('webgpu') ? this.handle.adapter : null,
      // Device trouble stays visible after a fallback: it is why the task left the GPU.
      deviceStats: this.handle.monitor?.stats() ?? null,
      backendsRan: [...this.ranBackends],
      launches: this.launches,
      failedLaunches: this.failedLaunches,
      kernelMs: this.kernelMs.stats(),
      kernelHist: this.kernelMs.toWire(),
      kernelSum: this.kernelMs.sum,
      inFlightMs: this.inFlightMs.stats(),
      inFlightHist: this.inFlightMs.toWire(),
      inFlightSum: this.inFlightMs.sum,
      busyMs: Math.round(this.busyMs(now)),
      batchFill: this.launches ? Math.round((this.fillSum / this.launches) * 1000) / 1000 : 0,
      batchSize: this.batchSize,
      tuples: this.tuples,
      tuplesPerSec: Math.round(this.rate * 10) / 10,
    };
  }

  destroy(): void {
    try {
      this.kernelFn?.destroy();
    } catch {
      // best effort: a half-built kernel may not destroy cleanly
    }
    this.kernelFn = null;
    this.building = null;
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private async attempt(args: readonly unknown[]): Promise<{ kernel: IKernelRunShortcut; raw: unknown }> {
    const kernel = await this.kernel();
    const launch = (): Promise<unknown> => Promise.resolve(kernel(...(args as never[])) as unknown);
    const monitor = this.mode === 'webgpu' ? this.handle.monitor : null;
    return { kernel, raw: monitor ? await monitor.guard(launch) : await launch() };
  }

  private kernel(): Promise<IKernelRunShortcut> {
    if (this.kernelFn) return Promise.resolve(this.kernelFn);
    this.building ??= Promise.resolve().then(() => {
      const gpu = new this.gpujs.GPU({ mode: this.mode });
      const settings: IGPUKernelSettings & { loopMaxIterations: number } = {
        output: launchShape(this.spec.output, this.batchSize),
        constants: this.spec.constants ?? {},
        asyncMode: true,
        // webasm splits a launch over this many threads; the worker shares its budget among GPU-bolt tasks
        poolSize: this.handle.cpuThreads(),
        loopMaxIterations: this.spec.loopMaxIterations ?? 1000,
        tactic: 'precision',
      };
      const k = gpu.createKernel(this.spec.fn as never, settings);
      this.kernelFn = k;
      this.launchedSinceBuild = 0;
      return k;
    });
    this.building.catch(() => {
      // Let the next launch try to build again (or on the CPU after a fallback).
      this.building = null;
    });
    return this.building;
  }

  /**
   * After a GPU failure: a fresh device if the old one was lost (a driver
   * reset, say) — unless that keeps happening, then the CPU backend, as for
   * any other GPU failure.
   */
  private recover(err: unknown): void {
    const lost = this.mode === 'webgpu' ? (this.handle.monitor?.stats().lost ?? 0) : 0;
    const now = performance.now();
    this.rebuilds = this.rebuilds.filter((t) => now - t < REBUILD_WINDOW_MS);
    if (lost > this.lostSeen && this.rebuilds.length < MAX_DEVICE_REBUILDS) {
      this.lostSeen = lost;
      this.rebuilds.push(now);
      this.log?.warn({ err, rebuildsInLastMinute: this.rebuilds.length, of: MAX_DEVICE_REBUILDS }, 'WebGPU device lost; rebuilding the kernel on a new device');
    } else {
      const from = this.mode;
      this.mode = this.handle.cpuBackend;
      const why = lost > this.lostSeen ? `its device was lost ${MAX_DEVICE_REBUILDS + 1} times within ${REBUILD_WINDOW_MS / 1000} s` : `${err instanceof Error ? err.message : String(err)}`;
      this.fallbackReason = `the ${from} kernel failed (${why}); rebuilt on ${this.mode}`;
      this.log?.warn({ err, from, to: this.mode }, 'GPU kernel failed; falling back to the CPU backend');
    }
    this.destroy();
    this.generation++;
  }

  private noteBackend(kernel: IKernelRunShortcut): void {
    const inner = kernel.kernel as unknown as { constructor: { mode?: string }; fallbackReason?: string | null };
    const mode = backendOfMode(inner.constructor.mode) ?? this.mode;
    if (mode === this.ran) return;
    this.ran = mode;
    if (!this.ranBackends.includes(mode)) this.ranBackends.push(mode);
    if (mode !== this.mode && inner.fallbackReason) this.fallbackReason = `gpu.js ran the kernel on ${mode}: ${inner.fallbackReason}`;
    const fell = mode !== this.handle.requested;
    this.log?.[fell ? 'warn' : 'info']({ backend: mode, requested: this.handle.requested, fallbackReason: fell ? this.fallbackReason : null }, fell ? 'GPU bolt kernel runs on a fallback backend' : 'GPU bolt kernel backend');
    if (mode === 'cpu') this.log?.warn('the cpu backend runs kernels on the main thread: long kernels delay this worker');
  }

  private rollRate(now: number): void {
    this.rate = (this.rateCount * 1000) / (now - this.rateStart);
    this.rateStart = now;
    this.rateCount = 0;
  }
}

/** hstorm's name for the backend of a gpu.js kernel class: its GL kernels (headless-gl in Node) call themselves 'gpu'. */
export function backendOfMode(mode: string | undefined): string | undefined {
  return mode === 'gpu' ? 'headlessgl' : mode;
}
