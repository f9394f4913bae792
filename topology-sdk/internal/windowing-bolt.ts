/**
 * What every windowing bolt shares (Storm's WindowedBoltExecutor, less where
 * the tuples live): it stamps each tuple, keeps an item for it in the window
 * manager, evaluates due windows by calling the author's `execute(window)` —
 * on its own timers, never two at once — and handles late tuples and the
 * window metrics. What an item is and what happens to it is the subclass's:
 *
 * - WindowedBoltExecutor (windowed-bolt-executor.ts) keeps the tuples
 *   themselves, anchors a window's emits to them, acks each when it leaves
 *   its last window and fails a window's tuples when it fails;
 * - the stateful windowed executors (stateful-windowed-bolt-executor.ts)
 *   build on it, or keep only an id per tuple and the tuple in the state store.
 *
 * Evaluations never overlap: while one is in progress (an async `execute`, a
 * GPU launch, a window read back from the store) `execute(tuple)` returns a
 * promise, so the worker stops feeding this task and backpressure reaches the
 * spouts. Time comes from an injectable clock: processing time stamps tuples
 * with `clock.now()` and a timer moves the window grid; event time computes
 * the watermark every watermark interval (watermark-tracker.ts).
 */
import { Bolt, type Conf, type EmitOptions, type OutputCollector } from '../components.js';
import { readEmitArgs } from './emit-args.js';
import type { TopologyContext } from '../context.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import type { Tuple } from '../tuple.js';
import { LATE_TUPLE_FIELD, type LateTuple, type TupleWindow } from '../tuple-window.js';
import type { WindowedBolt, TimestampExtractor } from '../windowed-bolt.js';
import { CHECKPOINT_STREAM, type WindowDef } from '../../common/topology-def.js';
import { describeWindow } from '../../common/window-text.js';
import type { WindowMetrics } from '../../common/storm-base.js';
import { WindowTimestampError } from '../../common/errors.js';
import { realIntervalClock, type IntervalClock } from '../../common/interval-clock.js';
import { WindowManager, type ManagedWindow, type WindowPosition } from './window-manager.js';
import { WatermarkTracker } from './watermark-tracker.js';

/** A windowed bolt that takes several due windows in one call (GpuWindowedBolt: one kernel launch for all). */
export interface WindowBatchBolt {
  /** Most windows one call takes. */
  windowsPerCall(): number;
  executeWindows(windows: readonly TupleWindow[]): Promise<void>;
}

function takesBatches(b: WindowedBolt): b is WindowedBolt & WindowBatchBolt {
  return typeof (b as Partial<WindowBatchBolt>).executeWindows === 'function';
}

export interface WindowedBoltExecutorOptions {
  /** The time source (tests pass a manual clock). */
  clock?: IntervalClock;
}

/** Processing time, time slide: how often the clock is checked for due windows, at most (a window is due at its grid end). */
const MAX_TICK_MS = 50;
/** Late tuples dropped are logged for the first few, then once per this many. */
const LATE_LOG_EVERY = 1000;

export abstract class WindowingBolt<T> extends Bolt {
  protected readonly clock: IntervalClock;
  protected def: WindowDef | null = null;
  protected manager: WindowManager<T> | null = null;
  private tracker: WatermarkTracker | null = null;
  private extract: TimestampExtractor | null = null;
  protected collector: OutputCollector | null = null;
  protected context: TopologyContext | null = null;
  private stopTimer: (() => void) | null = null;
  /** The evaluation in progress, if async; execute waits for it. */
  protected busy: Promise<void> | null = null;
  /** The windows being evaluated: what emits anchor to, and whether the author failed them. */
  protected current: ManagedWindow<T>[] | null = null;
  private currentFailed = false;
  /** Processing time with a count slide: windows fall due as tuples are added (no timer). */
  private countSlideOnAdd = false;
  /** Windows one call of the author's bolt takes (GpuWindowedBolt: per launch). */
  private perCall = 1;
  /** Every tuple needs the clock (event time: for idleness; a time length or slide: for its window). */
  private stampEachTuple = true;
  private lastStamp = 0;
  protected readonly stats = { windows: 0, failedWindows: 0, windowTuples: 0, lastWindowTuples: 0, maxWindowTuples: 0, lateDropped: 0, lateRouted: 0, evaluateMs: 0 };

  constructor(
    readonly bolt: WindowedBolt,
    options: WindowedBoltExecutorOptions = {},
  ) {
    super();
    this.clock = options.clock ?? realIntervalClock;
  }

  // ── what a kind of windowing bolt decides ─────────────────────────────────

  /** The manager's item for a tuple it takes (the tuple itself, or an id of it in the store). */
  protected abstract keep(tuple: Tuple, ts: number): T;
  /** Items no future window can hold: acked, or dropped from the store. */
  protected abstract evicted(items: readonly T[]): void;
  /** The windows the author's bolt gets (may read the items back from the store first). */
  protected abstract windowsOf(group: readonly ManagedWindow<T>[]): TupleWindow[] | Promise<TupleWindow[]>;
  /** What the author's emits during an evaluation are anchored to. */
  protected abstract anchorsOf(group: readonly ManagedWindow<T>[]): readonly Tuple[];
  /** The windows failed (the author threw, rejected or failed a tuple of them). */
  protected abstract failWindows(group: readonly ManagedWindow<T>[], err: unknown): void;
  /** Whether to take a tuple at all (a stateful window drops a replay it already evaluated); false: it is acked. */
  protected admit(_tuple: Tuple): boolean {
    return true;
  }

  /** Whether a tuple taken counts toward a count slide (a stateful window's replay it had evaluated does not). */
  protected counts(_tuple: Tuple): boolean {
    return true;
  }

  /** A due window to pass over without calling the author (a stateful window that fired before a crash). */
  protected skip(_w: ManagedWindow<T>): boolean {
    return false;
  }

  /** A window evaluated (or passed over): stateful windows record how far they got. */
  protected evaluatedWindow(_w: ManagedWindow<T>): void {}

  // ── the Bolt ──────────────────────────────────────────────────────────────

  /** The window as the topology definition records it (the builder asks, naming the component). */
  windowDef(component: string): WindowDef {
    return this.bolt.windowDef(component);
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    this.bolt.declareOutputFields(declarer);
    const late = this.bolt.lateTupleStream();
    if (late !== null) declarer.declareStream(late, [LATE_TUPLE_FIELD]);
  }

  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    const def = this.bolt.windowDef(context.componentId);
    this.def = def;
    this.collector = collector;
    this.context = context;
    this.resetWindows();
    this.extract = this.bolt.timestampExtractor();
    this.countSlideOnAdd = !def.eventTime && def.slide.unit === 'count';
    this.stampEachTuple = !(this.countSlideOnAdd && def.length.unit === 'count');
    this.lastStamp = this.clock.now();
    context.reportMetrics('window', () => this.metrics());
    // Timer-driven evaluations run outside execute: capacity counts them through this.
    context.reportBusyTime(() => this.stats.evaluateMs);
    await this.bolt.prepare(conf, context, this.windowCollector);
    this.perCall = takesBatches(this.bolt) ? Math.max(1, this.bolt.windowsPerCall()) : 1;
    if (def.eventTime) this.stopTimer = this.clock.every(def.watermarkIntervalMs, () => this.onWatermarkTick());
    else if (def.slide.unit === 'ms') this.stopTimer = this.clock.every(Math.min(def.slide.value, MAX_TICK_MS), () => this.onClockTick());
  }

  execute(tuple: Tuple): void | Promise<void> {
    if (!this.manager) throw new Error('the windowing bolt got a tuple before prepare() finished');
    if (this.busy) return this.busy.then(() => this.accept(tuple));
    return this.accept(tuple);
  }

  override async cleanup(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = null;
    await this.busy;
    // Tuples still held are neither acked nor failed: they time out and are replayed (at least once).
    await this.bolt.cleanup();
  }

  metrics(): WindowMetrics {
    const def = this.def;
    const m = this.manager;
    if (!def || !m) throw new Error('metrics() before prepare()');
    const t = this.tracker;
    const newest = t?.newestTimestamp ?? null;
    const wm = def.eventTime ? m.watermark : null;
    const now = this.clock.now();
    return {
      spec: describeWindow(def),
      eventTime: def.eventTime,
      ...this.stats,
      held: m.held,
      watermark: wm,
      watermarkLagMs: wm !== null && newest !== null ? Math.max(0, newest - wm) : null,
      activeInputs: t ? t.activeTasks(now) : null,
      inputs: t ? t.inputs : null,
    };
  }

  /** A new window manager (and watermark tracker), from `from` when given: at prepare, and when a stateful window restarts. */
  protected resetWindows(from?: WindowPosition): WindowManager<T> {
    const def = this.def!;
    this.manager = new WindowManager<T>({ length: def.length, slide: def.slide, eventTime: def.eventTime }, from);
    this.tracker = def.eventTime ? new WatermarkTracker({ lagMs: def.lagMs, idleTimeoutMs: def.idleTimeoutMs }, inputTasks(this.context!), this.clock.now()) : null;
    return this.manager;
  }

  // ── internals ─────────────────────────────────────────────────────────────

  /** What the author's bolt emits through: anchored to the windows being evaluated. */
  private readonly windowCollector: OutputCollector = {
    // Storm's positional forms are read here: an emit without anchors of its own is anchored to the window.
    emit: (a: unknown, b?: unknown, c?: unknown): number[] => {
      const e = readEmitArgs('bolt', this.context!.componentId, a, b, c);
      return this.collector!.emit(e.values, this.anchored({ stream: e.stream, anchors: e.anchors }));
    },
    emitDirect: (task: number, a?: unknown, b?: unknown, c?: unknown): void => {
      const e = readEmitArgs('bolt', this.context!.componentId, a, b, c, 'emitDirect');
      this.collector!.emitDirect(task, e.values, this.anchored({ stream: e.stream, anchors: e.anchors }));
    },
    // The runtime acks each tuple when it leaves its last window; an ack from the author would ack it twice.
    ack: () => undefined,
    // Fails the window being evaluated. Outside an evaluation there is none: the tuple is still held by its windows.
    fail: () => {
      if (this.current !== null) this.currentFailed = true;
    },
    // A held tuple's trees may outlive the message timeout on purpose (a long window over a slow input).
    resetTimeout: (t) => this.collector!.resetTimeout(t),
    reportError: (err: unknown) => this.collector!.reportError(err),
  };

  private anchored(options: EmitOptions | undefined): EmitOptions | undefined {
    if (options?.anchors !== undefined || this.current === null) return options;
    return { ...options, anchors: this.anchorsOf(this.current) };
  }

  private accept(tuple: Tuple): void | Promise<void> {
    if (!this.admit(tuple)) {
      this.collector!.ack(tuple);
      return;
    }
    const m = this.manager!;
    // A clock read costs more than the rest of a tuple's path on some machines: count windows in processing time read
    // it only for the tuple that ends a window; the others carry the last reading (their stamps only order them).
    const now = this.stampEachTuple || m.nextAddEndsWindow() ? (this.lastStamp = this.clock.now()) : this.lastStamp;
    let ts = now;
    if (this.extract) {
      const v: unknown = this.extract(tuple);
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new WindowTimestampError(this.context!.componentId, v, `${tuple.sourceComponent}:${tuple.sourceStreamId}`);
      ts = v;
      this.tracker!.track(tuple.sourceTask, ts, now);
    }
    if (this.def!.eventTime && m.watermark !== null && ts < m.watermark) {
      this.late(tuple);
      return;
    }
    m.add(this.keep(tuple, ts), ts, this.counts(tuple));
    // Count slides in processing time: a window may be due with this tuple. Otherwise the timers evaluate.
    if (!this.countSlideOnAdd) return;
    if (m.countWindowDue()) return this.evaluateDue();
    // No window due: only a time length lets tuples go between windows (the clock moved past them).
    this.release(m.evict());
  }

  private release(items: readonly T[]): void {
    if (items.length > 0) this.evicted(items);
  }

  private late(tuple: Tuple): void {
    const stream = this.def!.lateStream;
    const collector = this.collector!;
    if (stream !== null) {
      const copy: LateTuple = {
        sourceComponent: tuple.sourceComponent,
        sourceStreamId: tuple.sourceStreamId,
        sourceTask: tuple.sourceTask,
        fields: [...tuple.fields.names],
        values: [...tuple.values],
      };
      collector.emit([copy], { stream, anchors: tuple });
      this.stats.lateRouted++;
    } else {
      const n = ++this.stats.lateDropped;
      if (n <= 3 || n % LATE_LOG_EVERY === 0) {
        this.context!.log.info({ lateDropped: n, watermark: this.manager!.watermark, source: tuple.sourceComponent }, 'late tuple dropped (no late-tuple stream)');
      }
    }
    collector.ack(tuple);
  }

  private onClockTick(): void {
    this.manager!.advance(this.clock.now());
    void this.evaluateDue();
  }

  private onWatermarkTick(): void {
    const wm = this.tracker!.compute(this.clock.now());
    if (wm !== null) this.manager!.advance(wm);
    void this.evaluateDue();
  }

  /** Evaluates every due window, then releases what left; a promise while an evaluation is async. */
  protected evaluateDue(): void | Promise<void> {
    // The evaluation in progress takes every window that is due by the time it looks again.
    if (this.busy) return this.busy;
    const pending = this.drain();
    if (pending) {
      this.busy = pending.finally(() => {
        this.busy = null;
      });
      return this.busy;
    }
  }

  private drain(): Promise<void> | undefined {
    const m = this.manager!;
    const per = this.perCall;
    for (;;) {
      const group: ManagedWindow<T>[] = [];
      for (let w = group.length < per ? m.nextWindow() : null; w; w = group.length < per ? m.nextWindow() : null) {
        if (this.skip(w)) this.evaluatedWindow(w);
        else group.push(w);
      }
      if (group.length === 0) break;
      const r = this.run(group);
      if (r) return r.then(() => this.drain());
    }
    this.release(m.evict());
    return undefined;
  }

  /** Calls the author's bolt on `group`; a promise when it is async. Never throws or rejects: a failure fails the windows. */
  private run(group: ManagedWindow<T>[]): Promise<void> | undefined {
    const started = performance.now();
    let windows: TupleWindow[] | Promise<TupleWindow[]>;
    try {
      windows = this.windowsOf(group);
    } catch (err) {
      this.finish(group, started, err);
      return undefined;
    }
    if (windows instanceof Promise) {
      return windows.then(
        (ws) => this.call(group, ws, started),
        (err: unknown) => this.finish(group, started, err),
      );
    }
    return this.call(group, windows, started);
  }

  private call(group: ManagedWindow<T>[], windows: TupleWindow[], started: number): Promise<void> | undefined {
    this.current = group;
    this.currentFailed = false;
    let r: unknown;
    try {
      r = takesBatches(this.bolt) ? this.bolt.executeWindows(windows) : this.bolt.execute(windows[0]!);
    } catch (err) {
      this.finish(group, started, err);
      return undefined;
    }
    if (r instanceof Promise) {
      return r.then(
        () => this.finish(group, started, null),
        (err: unknown) => this.finish(group, started, err),
      );
    }
    this.finish(group, started, null);
    return undefined;
  }

  private finish(group: ManagedWindow<T>[], started: number, err: unknown): void {
    this.current = null;
    const s = this.stats;
    s.evaluateMs += performance.now() - started;
    for (const w of group) {
      const n = w.items.length;
      s.windows++;
      s.windowTuples += n;
      s.lastWindowTuples = n;
      if (n > s.maxWindowTuples) s.maxWindowTuples = n;
    }
    if (err === null && !this.currentFailed) {
      for (const w of group) this.evaluatedWindow(w);
      return;
    }
    s.failedWindows += group.length;
    this.failWindows(group, err ?? new Error('the bolt failed a tuple of the window'));
    if (err !== null) {
      this.context?.log.warn({ err, windows: group.length }, 'window evaluation failed');
      this.collector!.reportError(err);
    }
  }
}

/** The tasks that feed this component tuples: the watermark waits for each (checkpoint tuples never reach a window). */
function inputTasks(context: TopologyContext): number[] {
  const me = context.topologyDef.components.find((c) => c.id === context.componentId);
  const tasks = new Set<number>();
  for (const input of me?.inputs ?? []) if (input.stream !== CHECKPOINT_STREAM) for (const t of context.tasksOf(input.component)) tasks.add(t);
  return [...tasks];
}
