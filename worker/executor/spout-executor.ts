/**
 * Runs one spout task: calls nextTuple while the spout is active, below
 * `topology.max.spout.pending` and not held back by full downstream queues;
 * tracks each message id in the ack tree and reports ack / fail / timeout.
 */
import type { Spout, FailReason, SpoutOutputCollector, Values } from '../../topology-sdk/components.js';
import { isEmitOptions, readEmitArgs } from '../../topology-sdk/internal/emit-args.js';
import { Executor } from './executor.js';
import type { ExecutorHost, LocalAcker } from './executor-host.js';
import type { ComponentSettings } from '../worker-settings.js';
import { OutputRouter } from '../routing/output-router.js';
import { randomLowInBucket, writeRandomId } from '../acking/ack-ids.js';
import { ACKED, FAILED, INIT, RESET, type AckKind, type AckMessages } from '../acking/ack-messages.js';
import { ACKER_COMPONENT, DEFAULT_STREAM } from '../../common/topology-def.js';
import { PendingMessages } from '../acking/pending-messages.js';
import { treeStartOf } from '../transport/frame-tree-time.js';

/** A bolt failed the tree (the acker's fail). */
const FAILED_TREE: FailReason = Object.freeze({ kind: 'failed' });

/** Hooks a split spout uses to learn the fate and latency of each tracked message. */
export interface SpoutObserver {
  onComplete(stream: string, latencyMs: number, acked: boolean): void;
}

export class SpoutExecutor extends Executor {
  private readonly router: OutputRouter;
  private readonly pending: PendingMessages;
  /** High half of the next root: consecutive numbers from a random start (see PendingMessages). */
  private rootNumber = Math.floor(Math.random() * 0x1_0000_0000);
  private readonly maxPending: number;
  private readonly timeoutMs: number;
  private readonly waitMs: number;
  private active = false;
  private opened = false;
  /** Non-zero while backing off after an empty nextTuple. */
  private idleUntil = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private emittedThisCall = 0;
  /** Emits of the current nextTuple call failed at once (a subscriber had no running task). */
  private unplacedThisCall = 0;
  /** The wait after a nextTuple call whose every emit failed at once: doubles up to a second, so a spout replaying into an unplaced component does not spin. */
  private unplacedBackoffMs = 0;
  private expiryTimer: NodeJS.Timeout | null = null;
  observer: SpoutObserver | null = null;
  /** A stream's fields, to name a refused value's field. */
  private readonly fieldsOf = (stream: string): readonly string[] | undefined => this.router.fieldsOf(stream);
  /** Acker tasks of the topology, in ackerFor's order; and the ones in this process, by that index. */
  private ackerTasks: readonly number[] = [];
  private localAckers: (LocalAcker | undefined)[] = [];
  private localBuckets: number[] = [];
  private nextBucket = 0;
  /** Inside runSlice: `clock` is a recent performance.now() (read every 32 nextTuple calls). */
  private inSlice = false;
  private clock = 0;
  /** Inside runSlice: the wall clock read with `clock`, as the tree start a tracked tuple carries (RuntimeTuple.treeStart). */
  private treeNow = 0;

  constructor(
    host: ExecutorHost,
    component: string,
    task: number,
    settings: ComponentSettings,
    private readonly spout: Spout,
  ) {
    super(host, component, task, settings);
    this.router = new OutputRouter(component, host, Math.random, task);
    this.downstream = this.router.allTargets();
    this.maxPending = settings.maxSpoutPending;
    this.pending = new PendingMessages(this.maxPending);
    this.timeoutMs = settings.messageTimeoutMs;
    this.waitMs = settings.spoutWaitMs;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  readonly collector: SpoutOutputCollector = {
    emit: (a: unknown, b?: unknown, c?: unknown): number[] => {
      // The options form first, read without a parse (the hot path); Storm's positional forms go through readEmitArgs.
      if (Array.isArray(a) && c === undefined) {
        if (b === undefined) return this.emit(DEFAULT_STREAM, a, undefined, null);
        if (isEmitOptions(b) && b.anchors === undefined && (b.stream === undefined || typeof b.stream === 'string')) return this.emit(b.stream ?? DEFAULT_STREAM, a, b.messageId, null);
      }
      const e = readEmitArgs('spout', this.component, a, b, c);
      return this.emit(e.stream, e.values, e.messageId, null);
    },
    emitDirect: (task: number, a?: unknown, b?: unknown, c?: unknown): void => {
      const e = readEmitArgs('spout', this.component, a, b, c, 'emitDirect');
      this.emit(e.stream, e.values, e.messageId, task);
    },
    reportError: (err: unknown) => this.reportError(err, 'spout reported an error'),
  };

  async start(): Promise<void> {
    const ctx = this.host.contextFor(this.component, this.task);
    await this.spout.open(this.host.configOf(this.component), ctx, this.collector);
    this.opened = true;
    this.findLocalAckers();
    const sweep = Math.max(100, Math.min(1000, this.timeoutMs / 10));
    this.expiryTimer = setInterval(() => this.expire(), sweep);
    this.expiryTimer.unref();
  }

  activate(): void {
    if (this.active || !this.opened) return;
    this.active = true;
    this.guard(() => this.spout.activate(), 'activate');
    this.host.wake();
  }

  deactivate(): void {
    if (!this.active) return;
    this.active = false;
    this.guard(() => this.spout.deactivate(), 'deactivate');
  }

  async stop(): Promise<void> {
    this.deactivate();
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.opened) await this.spout.close();
  }

  override readonly takesTuples = false;

  override acceptsAcks(kind: AckKind): boolean {
    return kind === ACKED || kind === FAILED || kind === RESET;
  }

  ready(): boolean {
    if (this.busy) return false;
    if (this.ackQueue.length > 0) return true;
    return this.canEmit();
  }

  // Made once, not per call: two closures per nextTuple were an allocation each on the hot path.
  private readonly callNextTuple = (): unknown => this.spout.nextTuple();
  private readonly afterNextTuple = (err: unknown): void => {
    if (err) this.reportError(err, 'nextTuple threw');
    if (this.emittedThisCall === 0) this.sleep(this.waitMs);
    else if (this.unplacedThisCall === this.emittedThisCall) this.sleep((this.unplacedBackoffMs = Math.min(1000, Math.max(this.waitMs, 1, this.unplacedBackoffMs * 2))));
    else this.unplacedBackoffMs = 0;
  };

  private canEmit(): boolean {
    return this.active && this.pending.size < this.maxPending && this.idleUntil === 0 && !this.congested();
  }

  runSlice(deadline: number): void {
    this.drainAcks();
    // Reading the clock costs as much as a small emit: check the deadline every 32 calls, and stamp the emits of
    // those 32 calls with the last reading, never a clock read per tracked tuple (a tuple's complete latency then
    // reads at most 32 nextTuple calls long, never short; docs/benchmarks.md, "Acking, second round").
    let n = 0;
    this.clock = performance.now();
    this.treeNow = this.treeStartNow();
    this.inSlice = true;
    try {
      while (!this.busy && this.canEmit()) {
        this.emittedThisCall = 0;
        this.unplacedThisCall = 0;
        this.invoke(this.callNextTuple, this.afterNextTuple);
        if (this.busy) break;
        if ((++n & 31) === 0) {
          this.treeNow = this.treeStartNow();
          if ((this.clock = performance.now()) >= deadline) break;
        }
      }
    } finally {
      this.inSlice = false;
    }
  }

  /**
   * The acker tasks running in this process. Which acker tracks a tree is fixed by its root id alone (ackerFor: its
   * low half's low 30 bits mod the number of ackers, as Storm hashes the root); a spout that has an acker beside it draws roots that
   * land on it (randomLowInBucket), so the init and the acker's reply stay in this process — one hop across processes
   * per spout tuple's tree (the bolts' acks) instead of three when the acker sits elsewhere.
   */
  private findLocalAckers(): void {
    this.ackerTasks = this.host.tasksOf(ACKER_COMPONENT);
    this.localAckers = this.ackerTasks.map((t) => this.host.localAcker(t));
    this.localBuckets = [];
    this.localAckers.forEach((ex, i) => ex && this.localBuckets.push(i));
  }

  /** nextTuple emitted nothing: back off `topology.spout.wait.ms` (Storm's sleep spout wait strategy); or longer, see unplacedBackoffMs. */
  private sleep(ms: number): void {
    this.idleUntil = 1;
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.idleUntil = 0;
      this.host.wake();
    }, ms);
  }

  /**
   * After a new assignment: routes follow it, and the tuples in flight on a stream whose subscriber no longer has a
   * running task fail now (to be replayed, a split sending them to the side that runs) rather than at the timeout:
   * whatever of them reached the vanished tasks is lost with them.
   */
  override placementChanged(): void {
    super.placementChanged();
    this.router.updatePlacement();
    this.unplacedBackoffMs = 0;
    const gone = new Map<string, string>();
    for (const stream of this.router.streams()) {
      const component = this.router.unreachable(stream);
      if (component !== null) gone.set(stream, component);
    }
    if (gone.size === 0) return;
    const now = performance.now();
    this.pending.removeWhere(
      (_at, stream) => gone.has(stream),
      (messageId, emittedAt, stream) => {
        const component = gone.get(stream)!;
        const reason = this.host.placementOf(component).reason ?? 'no running task';
        this.finish(messageId, emittedAt, stream, false, now, { kind: 'unplaced', component, stream, reason });
      },
    );
    this.host.wake();
  }

  private drainAcks(): void {
    let m: AckMessages | undefined;
    while ((m = this.ackQueue.shift())) {
      // One or more roots (an acker's replies arrive merged), all arrived at once: one clock read for them.
      const acked = m.kind === ACKED;
      const now = performance.now();
      const w = m.words;
      if (m.kind === RESET) {
        // A bolt reset the trees' timeouts (OutputCollector.resetTimeout): they may stay pending another timeout.
        for (let i = 0; i < w.length; i += 2) this.pending.resetTimeout(w[i]!, w[i + 1]!, now);
        continue;
      }
      for (let i = 0; i < w.length; i += 2) {
        const msg = this.pending.take(w[i]!, w[i + 1]!);
        if (msg) this.finish(msg.messageId, msg.emittedAt, msg.stream, acked, now, FAILED_TREE); // null: already timed out
      }
    }
  }

  private finish(messageId: unknown, emittedAt: number, stream: string, acked: boolean, now: number, reason: FailReason): void {
    const latency = now - emittedAt;
    if (acked) {
      this.metrics.acked++;
      this.metrics.recordComplete(latency);
      this.guard(() => this.spout.ack(messageId), 'ack');
    } else {
      this.metrics.failed++;
      this.guard(() => this.spout.fail(messageId, reason), 'fail');
    }
    this.observer?.onComplete(stream, latency, acked);
  }

  /** Fails every message older than the timeout, oldest first (PendingMessages scans its columns: once per sweep, not per tuple). */
  private expire(): void {
    const now = performance.now();
    const deadline = now - this.timeoutMs;
    this.pending.expireBefore(deadline, (messageId, emittedAt, stream) => this.finish(messageId, emittedAt, stream, false, now, { kind: 'timeout', afterMs: Math.round(now - emittedAt) }));
    this.host.wake();
  }

  private emit(stream: string, values: Values, messageId: unknown, directTask: number | null): number[] {
    const wire = this.checkValues(stream, values, this.fieldsOf);
    const targets = this.router.targets(stream, values, directTask);
    this.emittedThisCall++;
    this.metrics.emitted++;
    const tracked = messageId !== undefined && messageId !== null;
    const unplaced = this.router.unplaced;
    if (unplaced !== null) {
      // A subscriber has no running task: a tracked tree could never complete, so it fails now instead of at the
      // timeout, and nothing is sent; an untracked tuple still goes to the subscribers that run.
      this.unplacedThisCall++;
      const why = this.countUnplaced(stream, unplaced);
      if (tracked) {
        this.failAtOnce(messageId, stream, { kind: 'unplaced', component: unplaced, stream, reason: why });
        return [];
      }
    }
    this.metrics.transferred += targets.length;
    let rootLo = 0;
    let rootHi = 0;
    if (tracked) {
      // Low half random (in a local acker's bucket when there is one), high half the spout's running number.
      const local = this.localBuckets;
      rootHi = this.rootNumber = (this.rootNumber + 1) >>> 0;
      rootLo = local.length > 0 ? randomLowInBucket(local[this.nextBucket++ % local.length]!, this.ackerTasks.length) : randomLowInBucket(0, 1);
      if (rootLo === 0 && rootHi === 0) rootLo = 1; // never the id 0 (its bucket: 1 in 2^32 of a run of numbers)
    }
    const acker = tracked ? this.host.ackerFor(rootLo) : null;
    if (!tracked || acker === null) {
      for (const t of targets) this.host.send(t, this.component, this.task, stream, values, null, wire);
      if (tracked) this.ackAtOnce(messageId, stream);
      return targets;
    }
    let xorLo = 0;
    let xorHi = 0;
    const treeStart = this.inSlice ? this.treeNow : this.treeStartNow();
    for (const t of targets) {
      // The tuple's ids: its root, and a fresh edge for this target, XORed into the init.
      const ids = [rootLo, rootHi, 0, 0];
      writeRandomId(ids, 2);
      xorLo ^= ids[2]!;
      xorHi ^= ids[3]!;
      this.host.send(t, this.component, this.task, stream, values, ids, wire, treeStart);
    }
    if (targets.length === 0) {
      this.ackAtOnce(messageId, stream);
      return targets;
    }
    this.pending.add(rootLo, rootHi, messageId, stream, this.inSlice ? this.clock : performance.now());
    const localAcker = this.localAckerOf(acker);
    // A local acker takes the init as a call, not a message (no queue slot, no wake-up).
    if (localAcker) localAcker.initLocal(rootLo, rootHi, xorLo >>> 0, xorHi >>> 0, this.task);
    else this.host.sendAck(acker, this.task, INIT, rootLo, rootHi, xorLo >>> 0, xorHi >>> 0);
    return targets;
  }

  /** Now as a tree start, on the wall clock receivers compare it with (the host's clock: a test's manual one). */
  private treeStartNow(): number {
    return treeStartOf(this.host.clock ? this.host.clock.now() : Date.now());
  }

  private localAckerOf(acker: number): LocalAcker | undefined {
    const i = this.ackerTasks.indexOf(acker);
    return i < 0 ? undefined : this.localAckers[i];
  }

  /** A message whose tree cannot complete: failed at once, after the emit returns (the spout may replay it from fail). */
  private failAtOnce(messageId: unknown, stream: string, reason: FailReason): void {
    this.metrics.failed++;
    queueMicrotask(() => this.guard(() => this.spout.fail(messageId, reason), 'fail'));
    this.observer?.onComplete(stream, 0, false);
  }

  /** Acking is off, or nothing subscribed: the message is complete as soon as it is emitted (as in Storm). */
  private ackAtOnce(messageId: unknown, stream: string): void {
    this.metrics.acked++;
    this.metrics.recordComplete(0);
    queueMicrotask(() => this.guard(() => this.spout.ack(messageId), 'ack'));
    this.observer?.onComplete(stream, 0, true);
  }

  private guard(call: () => unknown, what: string): void {
    try {
      const r = call();
      if (r instanceof Promise) r.catch((err: unknown) => this.reportError(err, `spout ${what} threw`));
    } catch (err) {
      this.reportError(err, `spout ${what} threw`);
    }
  }
}
