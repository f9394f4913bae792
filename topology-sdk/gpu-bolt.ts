/**
 * A bolt whose work is one gpu.js kernel (DESIGN §7), written once: the same
 * class runs on a GPU backend in a GPU worker and on a CPU backend in a CPU
 * worker, so one definition serves both sides of a hybrid topology.
 *
 * `execute` only gathers tuples: a batch launches when it holds
 * `topology.gpu.batch.size` tuples or its first tuple waited
 * `topology.gpu.batch.max.wait.ms`. At most `topology.gpu.launches.in.flight`
 * launches run at once; a full batch beyond that makes `execute` return a
 * promise that settles when a launch finishes — the executor then takes no
 * more tuples, so its queue, and the spout behind it, slow down
 * (backpressure). Results are emitted anchored to their own input tuple and
 * each tuple is acked; every tuple of a failed launch is failed (and replayed
 * by its spout). A tick tuple goes to `onTick`, never into a batch.
 *
 * @example
 * class Square extends GpuBolt {
 *   kernel() {
 *     return { fn: function (this: IKernelFunctionThis, v: number[][]) { return v[this.thread.y]![this.thread.x]! ** 2; }, output: [4] as const };
 *   }
 *   toInputs(tuples, batch) { return [batch.pack(tuples.map((t) => t.getValue(0) as Float32Array), [4])]; }
 *   emitResults(result, tuples, emit) { tuples.forEach((t, i) => emit(t, [result.item(i)])); }
 *   declareOutputFields(d) { d.declare(['squares']); }
 * }
 */
import { Bolt, type Conf, type OutputCollector, type Values } from './components.js';
import type { TopologyContext } from './context.js';
import type { Tuple } from './tuple.js';
import type { GpuMetrics } from '../common/storm-base.js';
import type { BatchInputs, BatchResult } from './internal/gpu-batch.js';
import { GpuKernelRunner, type KernelSpec } from './internal/gpu-kernel-runner.js';
import { TupleUtils } from './tuple-utils.js';

/** Emits one result tuple anchored to `anchor` (on `stream`, default the default stream). */
export type GpuEmit = (anchor: Tuple, values: Values, stream?: string) => void;

/** How long cleanup waits for launches in flight before it gives up on them. */
const DRAIN_MS = 10_000;

export abstract class GpuBolt extends Bolt {
  /** The kernel (built once per task, on the first launch). */
  abstract kernel(): KernelSpec;
  /** The kernel's arguments for a batch of up to `batch.size` tuples (pad with `batch.pack`). */
  abstract toInputs(tuples: readonly Tuple[], batch: BatchInputs): unknown[];
  /** Turns a launch's result into emitted tuples: `emit(tuples[i], values)` for item i. */
  abstract emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void;

  private runner: GpuKernelRunner | null = null;
  private collector: OutputCollector | null = null;
  private context: TopologyContext | null = null;
  private batchSize = 16;
  private maxWaitMs = 2;
  private maxInFlight = 2;
  private pending: Tuple[] = [];
  /** When each pending tuple entered the bolt (for its time in flight). */
  private pendingSince: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushDue = false;
  private inFlight = 0;
  /** A full batch waiting for a launch slot; calling it launches the batch and releases `execute`. */
  private slotWaiter: (() => void) | null = null;
  private idleWaiters: (() => void)[] = [];

  /** Override to read config before `kernel()` is called (e.g. a matrix size); the default does nothing. */
  protected setup(_conf: Conf, _context: TopologyContext): void | Promise<void> {}

  /** Subclasses that override prepare must call `super.prepare(...)`. */
  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    this.collector = collector;
    this.context = context;
    this.batchSize = conf['topology.gpu.batch.size'] ?? this.batchSize;
    this.maxWaitMs = conf['topology.gpu.batch.max.wait.ms'] ?? this.maxWaitMs;
    this.maxInFlight = conf['topology.gpu.launches.in.flight'] ?? this.maxInFlight;
    await this.setup(conf, context);
    const handle = await context.acquireGpuBackend();
    const runner = await GpuKernelRunner.create(this.kernel(), this.batchSize, handle, context.log);
    this.runner = runner;
    context.reportMetrics('gpu', () => runner.metrics());
    // execute() only gathers tuples; the kernel is where the time goes, so capacity counts its busy time.
    context.reportBusyTime(() => runner.busyMs());
  }

  /**
   * A tick tuple (topology.tick.tuple.freq.secs) never goes into a kernel batch: it comes here. The default does
   * nothing; a bolt that wants its partial batch launched on each tick calls `this.flushBatch()`. Emits from here go
   * through `collector` (the one prepare got), unanchored: a tick has no ack tree.
   */
  protected onTick(_tick: Tuple, _collector: OutputCollector): void | Promise<void> {}

  /** Launches the tuples gathered so far now, if a launch slot is free (else as soon as one is). */
  protected flushBatch(): void {
    if (this.pending.length === 0) return;
    if (this.inFlight < this.maxInFlight) this.launch();
    else this.flushDue = true;
  }

  execute(tuple: Tuple): void | Promise<void> {
    // The executor never calls execute before prepare finished; a direct caller (a test harness) might.
    if (!this.runner) throw new Error('GpuBolt.execute() called before prepare() finished');
    if (TupleUtils.isTick(tuple)) return this.onTick(tuple, this.collector!);
    this.pending.push(tuple);
    this.pendingSince.push(performance.now());
    if (this.pending.length >= this.batchSize) {
      if (this.inFlight < this.maxInFlight) {
        this.launch();
        return;
      }
      return new Promise<void>((resolve) => {
        this.slotWaiter = () => {
          this.launch();
          resolve();
        };
      });
    }
    if (this.pending.length === 1) {
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.inFlight < this.maxInFlight) this.launch();
        else this.flushDue = true;
      }, this.maxWaitMs);
    }
  }

  /** Launches what is pending and waits for every launch in flight. */
  override async cleanup(): Promise<void> {
    if (this.pending.length > 0 && this.inFlight < this.maxInFlight) this.launch();
    else if (this.pending.length > 0) this.flushDue = true;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, DRAIN_MS);
        this.idleWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    if (this.timer) clearTimeout(this.timer);
    this.runner?.destroy();
  }

  /** Backend, adapter, fallback, launches, kernel time, time in flight, busy time, batch fill and rate (the heartbeat's `gpu` section). */
  gpuMetrics(): GpuMetrics {
    if (!this.runner) throw new Error('gpuMetrics() before prepare()');
    return this.runner.metrics();
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private launch(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.flushDue = false;
    const tuples = this.pending;
    const since = this.pendingSince;
    this.pending = [];
    this.pendingSince = [];
    if (tuples.length === 0) return;
    this.inFlight++;
    void this.runBatch(tuples, since).finally(() => {
      this.inFlight--;
      this.slotFreed();
    });
  }

  private slotFreed(): void {
    const waiter = this.slotWaiter;
    if (waiter) {
      this.slotWaiter = null;
      waiter();
    } else if (this.flushDue && this.pending.length > 0) {
      this.launch();
    }
    if (this.inFlight === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async runBatch(tuples: Tuple[], since: number[]): Promise<void> {
    // execute() refused tuples until both were set.
    const runner = this.runner!;
    const collector = this.collector!;
    try {
      const inputs = this.toInputs(tuples, runner.batchInputs());
      const result = await runner.run(inputs, tuples.length);
      this.emitResults(result, tuples, (anchor, values, stream) => {
        collector.emit(values, stream === undefined ? { anchors: anchor } : { anchors: anchor, stream });
      });
    } catch (err) {
      runner.launchFailed();
      const failed = runner.metrics().failedLaunches;
      // The first failures say what broke; after that one line per 100 keeps a broken kernel from flooding the log.
      if (failed <= 5 || failed % 100 === 0) {
        this.context?.log.warn({ err, tuples: tuples.length, failedLaunches: failed }, 'GPU launch failed; failing its tuples');
      }
      for (const t of tuples) collector.fail(t);
      return;
    }
    const now = performance.now();
    for (let i = 0; i < tuples.length; i++) {
      collector.ack(tuples[i]!);
      runner.tupleDone(now - since[i]!);
    }
  }
}
