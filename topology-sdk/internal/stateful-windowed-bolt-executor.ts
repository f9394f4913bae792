/**
 * Storm's StatefulWindowedBoltExecutor and PersistentWindowedBoltExecutor:
 * the windowing bolts a StatefulWindowedBolt runs in, themselves wrapped in
 * the stateful executor (stateful-bolt-executor.ts), which holds their acks
 * until the commit and calls the hooks below at each checkpoint step. Each
 * keeps its own bookkeeping in a second namespace of the task
 * (`<topology>:<component>:<index>:window`), prepared, committed and rolled
 * back with the bolt's state.
 *
 * MessageIdWindowExecutor (withMessageIdField): tuples in memory, as in a
 * WindowedBolt. Saved at each checkpoint, per input task and stream: the
 * highest message id the window let go (acked) and the highest it evaluated;
 * in event time with a time slide, also the end of the last window evaluated.
 * Restarted from a commit — after a crash, or a rollback, when every tuple it
 * held is failed and replayed — it drops replays it had let go; with a count
 * slide, a replay it had evaluated joins windows without counting toward the
 * slide (Storm's StatefulWindowedBoltExecutor), so the grid is the one
 * without the crash; and it passes over (does not fire) a due window that
 * fired before that commit: in event time with a time slide, one ending at or
 * before the last end saved (window ends are fixed by the timestamps, so the
 * same window comes back); otherwise one whose every tuple it had evaluated.
 *
 * PersistentWindowExecutor (withPersistence): the tuples in the state store
 * (window-tuple-store.ts), each acked as it arrives (so at the next commit);
 * emits unanchored. A window that fails triggers a rollback (its tuples are
 * acked already: the checkpoint fails instead, and the window is evaluated
 * again from the last commit).
 */
import type { Conf, OutputCollector } from '../components.js';
import type { TopologyContext } from '../context.js';
import type { Tuple } from '../tuple.js';
import type { TupleIterator, TupleWindow } from '../tuple-window.js';
import { arrayTupleIterator, asyncOnlyTupleIterator } from './tuple-iterator.js';
import type { StatefulWindowedBolt } from '../stateful-windowed-bolt.js';
import { WindowMessageIdError } from '../../common/errors.js';
import type { ManagedWindow } from './window-manager.js';
import { WindowedBoltExecutor } from './windowed-bolt-executor.js';
import { WindowingBolt, type WindowedBoltExecutorOptions } from './windowing-bolt.js';
import type { StatefulComponent } from './stateful-bolt-executor.js';
import { StoreKeyValueState } from './store-key-value-state.js';
import { PagedState } from './paged-state.js';
import { WindowTupleStore } from './window-tuple-store.js';
import { stateNamespace } from './state-namespace.js';

type AnyStatefulWindowedBolt = StatefulWindowedBolt<never>;

/** The executor a StatefulWindowedBolt runs in (the builder wraps it in the stateful executor). */
export function statefulWindowedExecutor(bolt: AnyStatefulWindowedBolt, options: WindowedBoltExecutorOptions = {}): MessageIdWindowExecutor | PersistentWindowExecutor {
  return bolt.isPersistent() ? new PersistentWindowExecutor(bolt, options) : new MessageIdWindowExecutor(bolt, options);
}

/** Per input task and stream: the highest message id let go (acked) and evaluated. */
interface Progress {
  expired: number;
  evaluated: number;
}

/** Key of the last window end evaluated, in the window namespace (other keys are `task/stream`). */
const FIRED_END = '#end';

export class MessageIdWindowExecutor extends WindowedBoltExecutor implements StatefulComponent {
  private field = '';
  /** Event time with a time slide: windows are known by their end. */
  private byEnd = false;
  private progressState!: StoreKeyValueState<string, [number, number] | number>;
  /** Since the commit restarted from (committed + what happened since). */
  private live = new Map<string, Progress>();
  private liveEnd: number | null = null;
  /** As of the commit restarted from: what decides what to drop and what not to fire again. */
  private recovered = new Map<string, Progress>();
  private recoveredEnd: number | null = null;
  private loaded = false;
  private passedOver = 0;

  constructor(
    readonly statefulBolt: AnyStatefulWindowedBolt,
    options: WindowedBoltExecutorOptions = {},
  ) {
    super(statefulBolt, options);
  }

  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    await super.prepare(conf, context, collector);
    this.field = this.statefulBolt.stateDef(context.componentId).messageIdField!;
    this.byEnd = this.def!.eventTime && this.def!.slide.unit === 'ms';
    this.progressState = new StoreKeyValueState(context.stateStore, stateNamespace(context, 'window'), {
      component: context.componentId,
      task: context.taskId,
      onCorrupt: (err) => collector.reportError(err),
    });
  }

  async initState(state: never): Promise<void> {
    if (!this.loaded) await this.restart(() => this.progressState.load());
    await this.statefulBolt.initState(state);
  }

  async prePrepare(txid: number): Promise<void> {
    await this.statefulBolt.prePrepare(txid);
    for (const [k, p] of this.live) {
      const saved = this.progressState.get(k) as [number, number] | undefined;
      if (!saved || saved[0] !== p.expired || saved[1] !== p.evaluated) this.progressState.put(k, [p.expired, p.evaluated]);
    }
    if (this.liveEnd !== null && this.progressState.get(FIRED_END) !== this.liveEnd) this.progressState.put(FIRED_END, this.liveEnd);
    await this.progressState.prepare(txid);
  }

  async preCommit(txid: number): Promise<void> {
    await this.statefulBolt.preCommit(txid);
    if (this.loaded) await this.progressState.commit(txid);
    else await this.progressState.commitStore(txid);
  }

  async preRollback(): Promise<void> {
    await this.statefulBolt.preRollback();
    if (!this.loaded) {
      await this.progressState.rollbackStore();
      return;
    }
    // Every tuple the window holds was not acked: fail it, to be replayed, and start again from the commit.
    await this.busy;
    for (const t of this.manager!.takeAll()) this.collector!.fail(t);
    this.resetWindows();
    await this.restart(() => this.progressState.rollback());
  }

  protected override admit(tuple: Tuple): boolean {
    // Read on arrival, so a tuple without a usable id fails now rather than its whole window later.
    const id = this.idOf(tuple);
    const rec = this.recovered.get(sourceOf(tuple));
    return rec === undefined || id > rec.expired;
  }

  protected override counts(tuple: Tuple): boolean {
    // A replay evaluated before the commit restarted from is in windows again, but the slide counts only the rest:
    // so a count window's grid after a restart is the one without the crash.
    const rec = this.recovered.get(sourceOf(tuple));
    return rec === undefined || this.idOf(tuple) > rec.evaluated;
  }

  protected override skip(w: ManagedWindow<Tuple>): boolean {
    const fired = this.byEnd ? this.recoveredEnd !== null && w.endTs <= this.recoveredEnd : this.recovered.size > 0 && w.items.every((t) => this.idOf(t) <= (this.recovered.get(sourceOf(t))?.evaluated ?? -Infinity));
    if (fired && this.passedOver++ < 3) this.context?.log.info({ start: w.startTs, end: w.endTs, tuples: w.items.length }, 'stateful window: passing over a window that fired before the last commit');
    return fired;
  }

  protected override evaluatedWindow(w: ManagedWindow<Tuple>): void {
    for (const t of w.items) this.progress(t).evaluated = Math.max(this.progress(t).evaluated, this.idOf(t));
    if (this.byEnd && (this.liveEnd === null || w.endTs > this.liveEnd)) this.liveEnd = w.endTs;
  }

  protected override evicted(items: readonly Tuple[]): void {
    for (const t of items) this.progress(t).expired = Math.max(this.progress(t).expired, this.idOf(t));
    super.evicted(items);
  }

  private async restart(load: () => Promise<void>): Promise<void> {
    this.loaded = false;
    await load();
    this.recovered = new Map();
    this.recoveredEnd = null;
    for (const [k, v] of this.progressState) {
      if (k === FIRED_END) this.recoveredEnd = typeof v === 'number' ? v : null;
      else if (Array.isArray(v)) this.recovered.set(k, { expired: v[0], evaluated: v[1] });
    }
    this.live = new Map([...this.recovered].map(([k, p]) => [k, { ...p }]));
    this.liveEnd = this.recoveredEnd;
    this.loaded = true;
  }

  private progress(t: Tuple): Progress {
    const k = sourceOf(t);
    let p = this.live.get(k);
    if (!p) this.live.set(k, (p = { expired: -Infinity, evaluated: -Infinity }));
    return p;
  }

  private idOf(t: Tuple): number {
    const v: unknown = t.getValueByField(this.field);
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
    if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
    throw new WindowMessageIdError(this.context!.componentId, this.field, v, `${t.sourceComponent}:${t.sourceStreamId}`);
  }
}

function sourceOf(t: Tuple): string {
  return `${t.sourceTask}/${t.sourceStreamId}`;
}

/** A persistent window read back from the store: the tuples in memory when they fit, else only `getIter`. */
class StoredWindow implements TupleWindow {
  constructor(
    private readonly w: ManagedWindow<number>,
    private readonly tuples: Tuple[] | null,
    private readonly store: WindowTupleStore,
    private readonly limit: number,
  ) {}
  get(): readonly Tuple[] {
    if (this.tuples) return this.tuples;
    throw new RangeError(`this persistent window holds ${this.w.items.length} tuples, more than withMaxEventsInMemory (${this.limit}): read it with \`for await (const t of window.getIter())\``);
  }
  getNew(): readonly Tuple[] {
    throw new RangeError('a persistent window does not keep which tuples are new (as in Storm): use getIter()');
  }
  getExpired(): readonly Tuple[] {
    throw new RangeError('a persistent window does not keep which tuples expired (as in Storm): use getIter()');
  }
  getIter(): TupleIterator {
    if (this.tuples) return arrayTupleIterator(this.tuples);
    return asyncOnlyTupleIterator(
      () => this.store.iterate(this.w.items),
      `this persistent window holds ${this.w.items.length} tuples, more than withMaxEventsInMemory (${this.limit}), and is read back from the state store as it goes: iterate it with \`for await (const t of window.getIter())\` (hasNext()/next() and for…of need the tuples in memory)`,
    );
  }
  getStartTimestamp(): number {
    return this.w.startTs;
  }
  getEndTimestamp(): number {
    return this.w.endTs;
  }
}

export class PersistentWindowExecutor extends WindowingBolt<number> implements StatefulComponent {
  private tuples!: WindowTupleStore;
  private paged!: PagedState;
  private limit = 0;
  private loaded = false;
  /** A window failed: the next prepare fails, so the topology rolls back and the window is evaluated again. */
  private failure: unknown = null;

  constructor(
    readonly statefulBolt: AnyStatefulWindowedBolt,
    options: WindowedBoltExecutorOptions = {},
  ) {
    super(statefulBolt, options);
  }

  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    await super.prepare(conf, context, collector);
    this.limit = this.statefulBolt.stateDef(context.componentId).maxEventsInMemory!;
    this.paged = new PagedState(context.stateStore, stateNamespace(context, 'window'));
    this.tuples = new WindowTupleStore(this.paged, context.topologyDef, this.limit);
  }

  async initState(state: never): Promise<void> {
    if (!this.loaded) await this.rebuild();
    await this.statefulBolt.initState(state);
  }

  async prePrepare(txid: number): Promise<void> {
    if (this.failure !== null) {
      const err = this.failure;
      this.failure = null;
      throw new Error('a window failed since the last checkpoint: rolling back to evaluate it again', { cause: err });
    }
    await this.statefulBolt.prePrepare(txid);
    const m = this.manager!;
    const oldest = m.oldest();
    await this.tuples.prepare(txid, m.position(), oldest ? [oldest.ts, oldest.item] : null, this.def!.eventTime);
  }

  async preCommit(txid: number): Promise<void> {
    await this.statefulBolt.preCommit(txid);
    if (this.loaded) await this.paged.commit(txid);
    else await this.paged.commitStore(txid);
  }

  async preRollback(): Promise<void> {
    await this.statefulBolt.preRollback();
    await this.busy;
    this.loaded = false;
    this.failure = null;
    await this.paged.rollback();
    this.tuples.reset();
    await this.rebuild();
  }

  protected keep(tuple: Tuple, ts: number): number {
    const id = this.tuples.add(tuple, ts);
    // In the store from now on: acked (the stateful executor holds the ack until this checkpoint commits).
    this.collector!.ack(tuple);
    return id;
  }

  protected evicted(): void {
    // Nothing to do per tuple: the checkpoint's boundary says what left (window-tuple-store.ts).
  }

  protected async windowsOf(group: readonly ManagedWindow<number>[]): Promise<TupleWindow[]> {
    return Promise.all(group.map(async (w) => new StoredWindow(w, w.items.length <= this.limit ? await this.tuples.read(w.items) : null, this.tuples, this.limit)));
  }

  protected anchorsOf(): readonly Tuple[] {
    // Unanchored on purpose: the tuples are acked; a failure downstream is repaired by rolling back and evaluating again.
    return [];
  }

  protected failWindows(_group: readonly ManagedWindow<number>[], err: unknown): void {
    this.failure = err;
  }

  private async rebuild(): Promise<void> {
    const w = await this.tuples.rebuild(this.def!.eventTime);
    const m = this.resetWindows(w?.position);
    if (w) m.restore(w.released, w.pending);
    this.loaded = true;
  }
}
