/**
 * Runs one GpuBolt kernel on the backend the worker selected, with no
 * topology around it (GpuBolt drives it; the benchmark calls it directly).
 *
 * - Every call is asynchronous: GPU kernels are awaited, CPU kernels run in
 *   gpu.js async mode, where webasm splits them over worker threads — kernel
 *   work never holds the event loop (heartbeats, acks, transport) for long.
 * - The backend reported is the one that ran, read from the kernel
 *   (`kernel.kernel.constructor.mode`), never the one asked for.
 * - A kernel a GPU backend cannot run is rebuilt once on the CPU backend; the
 *   fallback and its reason are logged and reported.
 */
import type { IGPUKernelSettings, IKernelFunctionThis, IKernelRunShortcut } from 'gpu.js';
import type { GpuMetrics } from '../common/storm-base.js';
import { Histogram } from '../common/histogram.js';
import type { ComponentLogger } from './context.js';
import { isGpuBackend, type GpuBackendHandle, type GpuBackendName } from './gpu-backend-handle.js';
import { BatchInputs, BatchResult, launchShape, type ItemShape } from './gpu-batch.js';
import { loadGpuJs, type GpuJsModule } from './gpu-js.js';

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
  /** Bumped when the kernel is rebuilt on another backend. */
  private generation = 0;
  private mode: GpuBackendName;
  private ran: string | null = null;
  private fallbackReason: string | null;
  private readonly kernelMs = new Histogram();
  private launches = 0;
  private tuples = 0;
  private fillSum = 0;
  private lastDone = 0;
  private launchedSinceBuild = 0;
  private rateStart = performance.now();
  private rateCount = 0;
  private rate = 0;

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
    let ran: { kernel: IKernelRunShortcut; raw: unknown };
    try {
      ran = await this.attempt(args);
    } catch (err) {
      // Unless another launch already rebuilt the kernel, a GPU failure (building or running) moves it to the CPU.
      if (generation === this.generation) {
        if (!isGpuBackend(this.mode)) throw err;
        this.fallBackToCpu(err);
      }
      ran = await this.attempt(args);
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

  metrics(): GpuMetrics {
    const now = performance.now();
    if (now - this.rateStart >= 2000) this.rollRate(now);
    const backend = this.ran ?? this.mode;
    return {
      backend,
      requestedBackend: this.handle.requested,
      fallback: backend !== this.handle.requested,
      fallbackReason: backend !== this.handle.requested ? (this.fallbackReason ?? `gpu.js ran the kernel on ${backend}`) : null,
      device: isGpuBackend(backend) ? this.handle.device : null,
      launches: this.launches,
      kernelMs: this.kernelMs.stats(),
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
    return { kernel, raw: await kernel(...(args as never[])) };
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

  private fallBackToCpu(err: unknown): void {
    const from = this.mode;
    this.mode = this.handle.cpuBackend;
    this.fallbackReason = `the ${from} kernel failed (${err instanceof Error ? err.message : String(err)}); rebuilt on ${this.mode}`;
    this.log?.warn({ err, from, to: this.mode }, 'GPU kernel failed; falling back to the CPU backend');
    this.destroy();
    this.generation++;
  }

  private noteBackend(kernel: IKernelRunShortcut): void {
    const inner = kernel.kernel as unknown as { constructor: { mode?: string }; fallbackReason?: string | null };
    const mode = inner.constructor.mode ?? this.mode;
    if (mode === this.ran) return;
    this.ran = mode;
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
