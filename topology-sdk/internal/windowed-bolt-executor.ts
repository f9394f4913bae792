/**
 * Storm's WindowedBoltExecutor: the plain Bolt the builder puts in place of
 * a WindowedBolt (a bolt, despite its name, not one of the worker's
 * executors — the worker runs it as any bolt). It stamps each tuple, keeps
 * it in the window manager, evaluates due windows by calling the author's
 * `execute(window)`, and acks each tuple when it leaves the last window that
 * holds it (docs/windowing.md):
 *
 * - emits from `execute` are anchored to every tuple of the window (unless
 *   the author passes anchors), so a window's output completes their trees;
 * - a window whose `execute` throws, rejects or fails a tuple fails all of
 *   its tuples, and they leave every later window (their spouts replay them);
 * - evaluations never overlap: while one is in progress (an async `execute`,
 *   a GPU launch) `execute(tuple)` returns a promise, so the worker stops
 *   feeding this task and backpressure reaches the spouts;
 * - late tuples (event time, stamped before the watermark) go to the late
 *   stream, anchored, or are dropped and counted; either way they are acked.
 *
 * Time comes from an injectable clock: processing time stamps tuples with
 * `clock.now()` and a timer moves the window grid; event time computes the
 * watermark every watermark interval (internal/watermark-tracker.ts).
 */
import { Bolt, type Conf, type EmitOptions, type OutputCollector } from '../components.js';
import type { TopologyContext } from '../context.js';
import { readEmitArgs } from './emit-args.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import type { Tuple } from '../tuple.js';
import { LATE_TUPLE_FIELD, type LateTuple, type TupleWindow } from '../tuple-window.js';
import type { WindowedBolt, TimestampExtractor } from '../windowed-bolt.js';
import type { WindowDef } from '../../common/topology-def.js';
import { describeWindow } from '../../common/window-text.js';
import type { WindowMetrics } from '../../common/storm-base.js';
import { WindowTimestampError } from '../../common/errors.js';
import { realIntervalClock, type IntervalClock } from '../../common/interval-clock.js';
import { WindowManager, type ManagedWindow } from './window-manager.js';
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

class TupleWindowImpl implements TupleWindow {
  constructor(readonly w: ManagedWindow<Tuple>) {}
  get(): readonly Tuple[] {
    return this.w.items;
  }
  getNew(): readonly Tuple[] {
    return this.w.added;
  }
  getExpired(): readonly Tuple[] {
    return this.w.expired;
  }
  getStartTimestamp(): number {
    return this.w.startTs;
  }
  getEndTimestamp(): number {
    return this.w.endTs;
  }
}

export class WindowedBoltExecutor extends Bolt {
  private readonly clock: IntervalClock;
  private def: WindowDef | null = null;
  private manager: WindowManager<Tuple> | null = null;
  private tracker: WatermarkTracker | null = null;
  private extract: TimestampExtractor | null = null;
  private collector: OutputCollector | null = null;
  private context: TopologyContext | null = null;
  private stopTimer: (() => void) | null = null;
  /** The evaluation in progress, if async; execute waits for it. */
  private busy: Promise<void> | null = null;
  /** The windows being evaluated: what emits anchor to, and whether the author failed them. */
  private current: ManagedWindow<Tuple>[] | null = null;
  private currentFailed = false;
  /** Processing time with a count slide: windows fall due as tuples are added (no timer). */
  private countSlideOnAdd = false;
  /** Windows one call of the author's bolt takes (GpuWindowedBolt: per launch). */
  private perCall = 1;
  /** Every tuple needs the clock (event time: for idleness; a time length or slide: for its window). */
  private stampEachTuple = true;
  private lastStamp = 0;
  private readonly stats = { windows: 0, failedWindows: 0, windowTuples: 0, lastWindowTuples: 0, maxWindowTuples: 0, lateDropped: 0, lateRouted: 0, evaluateMs: 0 };

  constructor(
    readonly bolt: WindowedBolt,
    options: WindowedBoltExecutorOptions = {},
  ) {
    super();
    this.clock = options.clock ?? realIntervalClock;
  }

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
    this.manager = new WindowManager<Tuple>({ length: def.length, slide: def.slide, eventTime: def.eventTime });
    this.extract = this.bolt.timestampExtractor();
    this.countSlideOnAdd = !def.eventTime && def.slide.unit === 'count';
    this.stampEachTuple = !(this.countSlideOnAdd && def.length.unit === 'count');
    this.lastStamp = this.clock.now();
    if (def.eventTime) this.tracker = new WatermarkTracker({ lagMs: def.lagMs, idleTimeoutMs: def.idleTimeoutMs }, inputTasks(context), this.clock.now());
    context.reportMetrics('window', () => this.metrics());
    // Timer-driven evaluations run outside execute: capacity counts them through this.
    context.reportBusyTime(() => this.stats.evaluateMs);
    await this.bolt.prepare(conf, context, this.windowCollector);
    this.perCall = takesBatches(this.bolt) ? Math.max(1, this.bolt.windowsPerCall()) : 1;
    if (def.eventTime) this.stopTimer = this.clock.every(def.watermarkIntervalMs, () => this.onWatermarkTick());
    else if (def.slide.unit === 'ms') this.stopTimer = this.clock.every(Math.min(def.slide.value, MAX_TICK_MS), () => this.onClockTick());
  }

  execute(tuple: Tuple): void | Promise<void> {
    if (!this.manager) throw new Error('WindowedBoltExecutor.execute() called before prepare() finished');
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
    reportError: (err: unknown) => this.collector!.reportError(err),
  };

  private anchored(options: EmitOptions | undefined): EmitOptions | undefined {
    if (options?.anchors !== undefined || this.current === null) return options;
    const anchors = this.current.length === 1 ? this.current[0]!.items : this.current.flatMap((w) => w.items);
    return { ...options, anchors };
  }

  private accept(tuple: Tuple): void | Promise<void> {
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
    if (m.add(tuple, ts) === 'late') {
      this.late(tuple);
      return;
    }
    // Count slides in processing time: a window may be due with this tuple. Otherwise the timers evaluate.
    if (!this.countSlideOnAdd) return;
    if (m.countWindowDue()) return this.evaluateDue();
    // No window due: only a time length lets tuples go between windows (the clock moved past them).
    for (const t of m.evict()) this.collector!.ack(t);
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

  /** Evaluates every due window, then acks what left; a promise while an evaluation is async. */
  private evaluateDue(): void | Promise<void> {
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
      const group: ManagedWindow<Tuple>[] = [];
      for (let w = group.length < per ? m.nextWindow() : null; w; w = group.length < per ? m.nextWindow() : null) group.push(w);
      if (group.length === 0) break;
      const r = this.run(group);
      if (r) return r.then(() => this.drain());
    }
    for (const t of m.evict()) this.collector!.ack(t);
    return undefined;
  }

  /** Calls the author's bolt on `group`; a promise when it is async. Never throws or rejects: a failure fails the windows. */
  private run(group: ManagedWindow<Tuple>[]): Promise<void> | undefined {
    const started = performance.now();
    this.current = group;
    this.currentFailed = false;
    let r: unknown;
    try {
      const windows = group.map((w) => new TupleWindowImpl(w));
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

  private finish(group: ManagedWindow<Tuple>[], started: number, err: unknown): void {
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
    if (err === null && !this.currentFailed) return;
    s.failedWindows += group.length;
    const tuples = new Set(group.flatMap((w) => w.items));
    this.manager!.remove(tuples);
    for (const t of tuples) this.collector!.fail(t);
    if (err !== null) {
      this.context?.log.warn({ err, windows: group.length, tuples: tuples.size }, 'window evaluation failed; failing its tuples');
      this.collector!.reportError(err);
    }
  }
}

/** The tasks that feed this component: the watermark waits for each. */
function inputTasks(context: TopologyContext): number[] {
  const me = context.topologyDef.components.find((c) => c.id === context.componentId);
  const tasks = new Set<number>();
  for (const input of me?.inputs ?? []) for (const t of context.tasksOf(input.component)) tasks.add(t);
  return [...tasks];
}
