/**
 * A windowed bolt whose work is one gpu.js kernel per window (DESIGN §7,
 * §13): the window's tuples go to the device together, as rows of one
 * input, instead of one launch per tuple. Written once, it runs on the GPU
 * backend in a GPU worker and on a CPU backend in a CPU worker, and reports
 * the backend that ran, as GpuBolt does (the heartbeat's `gpu` section).
 *
 * Shapes are fixed so the kernel is compiled once: every window is padded
 * with zero rows to `capacity` tuples (a count window's length, or
 * `withCapacity(n)`; a larger window doubles it, rebuilding the kernel once
 * per doubling, logged), and windows due together — event time catching up,
 * a late timer — go into one launch along the last dimension, up to
 * `withWindowsPerLaunch(n)` (default 1: one launch per window). A launch of
 * [x, y, B] finds its window at `this.thread.z`.
 *
 * Emits are anchored to the window they belong to; a failed launch fails the
 * tuples of every window in it (their spouts replay them).
 *
 * @example
 * class ColumnSums extends GpuWindowedBolt {
 *   kernel(capacity: number) {
 *     return { fn: function (this: IKernelFunctionThis<{ rows: number }>, x: number[][][]) {
 *       let s = 0; for (let r = 0; r < this.constants.rows; r++) s += x[this.thread.y]![r]![this.thread.x]!; return s;
 *     }, output: [4] as const, constants: { rows: capacity }, loopMaxIterations: capacity };
 *   }
 *   toInputs(windows, batch) { return [batch.packRows(windows.map((w) => w.get().map((t) => t.getValue(0) as Float32Array)), 4)]; }
 *   emitResults(result, windows, emit) { windows.forEach((_, i) => emit(i, [Array.from(result.item(i))])); }
 *   declareOutputFields(d) { d.declare(['sums']); }
 * }
 */
import type { Input } from 'gpu.js';
import type { Conf, OutputCollector, Values } from './components.js';
import type { TopologyContext } from './context.js';
import type { TupleWindow } from './tuple-window.js';
import { WindowedBolt } from './windowed-bolt.js';
import { WindowValidationError } from '../common/errors.js';
import type { GpuMetrics } from '../common/storm-base.js';
import type { BatchInputs, BatchResult, ItemShape } from './internal/gpu-batch.js';
import { GpuKernelRunner, type KernelSpec } from './internal/gpu-kernel-runner.js';
import type { WindowBatchBolt } from './internal/windowing-bolt.js';

/** Emits one tuple for window `index` of the launch, anchored to that window's tuples. */
export type GpuWindowEmit = (index: number, values: Values, stream?: string) => void;

/** The launch a GpuWindowedBolt's `toInputs` fills: up to `windows` windows of up to `capacity` tuples each. */
export class WindowBatch {
  constructor(
    /** B: windows per launch (the last dimension). */
    readonly windows: number,
    /** Tuples per window, padded: the rows every window has. */
    readonly capacity: number,
    private readonly inputs: BatchInputs,
  ) {}

  /**
   * One kernel argument from each window's rows (`width` numbers per tuple, in window order): window i at batch
   * index i, its rows after the last and the windows after the last zeros. A [width, capacity, B] input: the kernel
   * reads `x[this.thread.z][row][column]`.
   */
  packRows(windows: readonly (readonly ArrayLike<number>[])[], width: number): Input {
    const items = windows.map((rows, w) => {
      if (rows.length > this.capacity) throw new RangeError(`window ${w} has ${rows.length} rows; the launch holds ${this.capacity}`);
      const flat = new Float32Array(width * this.capacity);
      rows.forEach((row, r) => {
        if (row.length !== width) throw new RangeError(`window ${w}, row ${r} has ${row.length} numbers; expected ${width}`);
        flat.set(row, r * width);
      });
      return flat;
    });
    return this.inputs.pack(items, [width, this.capacity]);
  }

  /** One kernel argument with one item of `shape` per window (GpuBolt's `batch.pack`), e.g. per-window parameters. */
  pack(items: readonly ArrayLike<number>[], shape: ItemShape): Input {
    return this.inputs.pack(items, shape);
  }
}

export abstract class GpuWindowedBolt extends WindowedBolt implements WindowBatchBolt {
  /** The kernel for windows of `capacity` rows (built once per capacity, on the first launch). */
  abstract kernel(capacity: number): KernelSpec;
  /** The kernel's arguments for these windows (`batch.packRows`, `batch.pack`). */
  abstract toInputs(windows: readonly TupleWindow[], batch: WindowBatch): unknown[];
  /** Turns a launch's result into tuples: item i is `windows[i]`'s; `emit(i, values)`. */
  abstract emitResults(result: BatchResult, windows: readonly TupleWindow[], emit: GpuWindowEmit): void;

  private runner: GpuKernelRunner | null = null;
  private collector: OutputCollector | null = null;
  private context: TopologyContext | null = null;
  private capacity: number | null = null;
  private perLaunch = 1;
  private rebuilds = 0;

  /** Rows every window is padded to (default: the count length of a count window, else 256); larger windows double it. */
  withCapacity(tuples: number): this {
    if (!Number.isSafeInteger(tuples) || tuples < 1) throw new WindowValidationError(`withCapacity(${String(tuples)}): a number of tuples ≥ 1`);
    this.capacity = tuples;
    return this;
  }

  /** Windows due together that share one launch (default 1). */
  withWindowsPerLaunch(n: number): this {
    if (!Number.isSafeInteger(n) || n < 1) throw new WindowValidationError(`withWindowsPerLaunch(${String(n)}): a number of windows ≥ 1`);
    this.perLaunch = n;
    return this;
  }

  /** Override to read config before `kernel()` is called (e.g. a vector width); the default does nothing. */
  protected setup(_conf: Conf, _context: TopologyContext): void | Promise<void> {}

  /** Subclasses that override prepare must call `super.prepare(...)`. */
  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    this.collector = collector;
    this.context = context;
    const def = this.windowDef(context.componentId);
    this.capacity ??= def.length.unit === 'count' ? def.length.value : 256;
    await this.setup(conf, context);
    const handle = await context.acquireGpuBackend();
    this.runner = await GpuKernelRunner.create(this.kernel(this.capacity), this.perLaunch, handle, context.log);
    context.reportMetrics('gpu', () => this.gpuMetrics());
    // Busy time: the windowing bolt counts the time its windows take, launches included.
  }

  windowsPerCall(): number {
    return this.perLaunch;
  }

  execute(window: TupleWindow): Promise<void> {
    return this.executeWindows([window]);
  }

  /** One launch for these windows (the windowing bolt hands over up to `windowsPerCall()` due together). */
  async executeWindows(windows: readonly TupleWindow[]): Promise<void> {
    if (!this.runner) throw new Error('GpuWindowedBolt.executeWindows() called before prepare() finished');
    const largest = Math.max(...windows.map((w) => w.get().length));
    if (largest > this.capacity!) await this.grow(largest);
    const runner = this.runner;
    const collector = this.collector!;
    const started = performance.now();
    try {
      const inputs = this.toInputs(windows, new WindowBatch(this.perLaunch, this.capacity!, runner.batchInputs()));
      const result = await runner.run(inputs, windows.length);
      this.emitResults(result, windows, (i, values, stream) => {
        const w = windows[i];
        if (!w) throw new RangeError(`emit for window ${i}: the launch has ${windows.length}`);
        collector.emit(values, stream === undefined ? { anchors: w.get() } : { anchors: w.get(), stream });
      });
      // "In flight" of a windowed kernel is per window: from the launch's start to its results emitted.
      const ms = performance.now() - started;
      for (let i = 0; i < windows.length; i++) runner.tupleDone(ms);
    } catch (err) {
      runner.launchFailed();
      throw err;
    }
  }

  override cleanup(): void {
    this.runner?.destroy();
  }

  /** The backend that ran, launches, kernel time (the heartbeat's `gpu` section). */
  gpuMetrics(): GpuMetrics {
    if (!this.runner) throw new Error('gpuMetrics() before prepare()');
    return this.runner.metrics();
  }

  /** A window larger than the padded capacity: double it until it fits, and build the kernel again for it. */
  private async grow(rows: number): Promise<void> {
    let capacity = this.capacity!;
    while (capacity < rows) capacity *= 2;
    const old = this.runner!;
    this.rebuilds++;
    this.context?.log.warn({ from: this.capacity, to: capacity, window: rows, rebuilds: this.rebuilds }, 'window larger than the kernel\'s capacity: rebuilding the kernel for more rows (set withCapacity to avoid it)');
    this.runner = await GpuKernelRunner.create(this.kernel(capacity), this.perLaunch, old.handle, this.context?.log ?? null);
    this.capacity = capacity;
    old.destroy();
  }
}
