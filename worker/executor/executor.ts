/**
 * The part every executor shares: its input queues, its metrics, and how the
 * worker's run loop drives it. One executor runs one task; calls into user
 * code for that task never overlap (an async call is awaited first).
 */
import { BoundedQueue } from './bounded-queue.js';
import { ParkedTuples } from '../backpressure/parked-tuples.js';
import type { RuntimeTuple } from './runtime-tuple.js';
import type { AckKind, AckMessages } from '../acking/ack-messages.js';
import { ExecutorMetricsRecorder } from './executor-metrics.js';
import type { ExecutorHost } from './executor-host.js';
import type { ComponentSettings } from '../worker-settings.js';
import type { Logger } from '../../common/logger.js';
import { RateLimitedLog } from '../../common/logger.js';
import { MAX_REPORTED_ERRORS, type ComponentError, type UnplacedTarget } from '../../common/storm-base.js';
import { TargetUnplacedError } from '../errors.js';
import { EmitError } from '../../common/errors.js';
import { CHECKPOINT_COMPONENT } from '../../common/topology-def.js';
import { NO_VALUE_TYPES, ValueRefusal, inspectValues, type ValueTypes } from '../../common/values/value-types.js';
import { toWireForm } from '../../common/values/wire-form.js';

/** How often tuples failed towards an unplaced component are reported again as the component's error. */
const UNPLACED_REPORT_MS = 10_000;
import { MetricRegistry } from '../../topology-sdk/user-metrics.js';

export abstract class Executor {
  /** Data tuples; bounded (producers hold back when full). */
  readonly queue: BoundedQueue<RuntimeTuple>;
  /** Ack-protocol messages (runs of one kind, acking/ack-messages.ts); never held back, so acks cannot deadlock behind data. */
  readonly ackQueue: BoundedQueue<AckMessages>;
  /** Tuples from other workers that arrived while `queue` was full, kept as their frames until it has room (the receiver's). */
  readonly parked = new ParkedTuples();
  readonly metrics: ExecutorMetricsRecorder;
  readonly log: Logger;
  protected readonly errors: RateLimitedLog;
  /** Heartbeat sections the component registered (TopologyContext.reportMetrics): `gpu`, `split`. */
  readonly metricSections = new Map<string, () => unknown>();
  /** What the component registered through context.registerCounter/Gauge/Histogram/Meter. */
  readonly userMetrics = new MetricRegistry();
  /** The latest errors, for the heartbeat (Storm UI's lastError / componentErrors). */
  private readonly recentErrors: ComponentError[] = [];
  /** An async user call is in progress. */
  protected busy = false;
  protected downstream: number[] = [];
  /** Tuples not sent because a subscriber had no running task, by stream and subscriber (in the heartbeat). */
  private readonly unplacedSends = new Map<string, UnplacedTarget>();
  private unplacedReportedAt = -Infinity;
  /** The classes whose instances this topology may emit (registerSerialization). */
  private readonly valueTypes: ValueTypes;

  constructor(
    protected readonly host: ExecutorHost,
    readonly component: string,
    readonly task: number,
    /** What the executor reads of its component's config, compiled once (worker-settings.ts). */
    protected readonly settings: ComponentSettings,
  ) {
    this.queue = new BoundedQueue<RuntimeTuple>(settings.receiveBufferSize);
    this.ackQueue = new BoundedQueue<AckMessages>(settings.receiveBufferSize);
    this.metrics = new ExecutorMetricsRecorder(component, task);
    this.log = host.log.child({ component, task });
    this.errors = new RateLimitedLog(this.log);
    this.valueTypes = host.valueTypes ?? NO_VALUE_TYPES;
  }

  /**
   * Checks the values of an emit before anything is routed or sent (common/values/): returns their wire form when
   * they need one to reach another worker as they are, else null; a value that cannot travel is an EmitError naming
   * the field and what it is — whether the target task is in this worker or another, so a topology that works on one
   * worker works on many.
   */
  protected checkValues(stream: string, values: readonly unknown[], fieldsOf: (stream: string) => readonly string[] | undefined): unknown[] | null {
    // Strings and numbers (not -0) first, inline: a tuple of them — most tuples — leaves here after one type check
    // per value, without a call or a try (inspectValues does the rest; docs/benchmarks.md, "Values at emit").
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'string' || (typeof v === 'number' && (v !== 0 || 1 / v > 0))) continue;
      return this.checkRest(stream, values, fieldsOf);
    }
    return null;
  }

  private checkRest(stream: string, values: readonly unknown[], fieldsOf: (stream: string) => readonly string[] | undefined): unknown[] | null {
    try {
      return inspectValues(values, this.valueTypes) ? toWireForm(values, this.valueTypes) : null;
    } catch (err) {
      if (!(err instanceof ValueRefusal)) throw err;
      // The stream's field names only now: looking them up on every emit would cost the hot path a Map read.
      const field = fieldsOf(stream)?.[err.index] ?? null;
      const type = err.what;
      throw new EmitError(
        `component "${this.component}" emitted ${type}${err.path ? ` at ${err.path}` : ''} in value ${err.index}${field ? ` ("${field}")` : ''} on stream "${stream}": it cannot travel between workers, so the emit is refused (in every worker alike); ${err.hint}`,
        this.component,
        stream,
        { index: err.index, field, path: err.path, type },
      );
    }
  }

  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  /** Can make progress now. */
  abstract ready(): boolean;
  /** Runs until `deadline` (performance.now() ms) or out of work. */
  abstract runSlice(deadline: number): void;

  /** The registered sections, user metrics and latest errors, merged into this executor's heartbeat metrics by the worker. */
  extraMetrics(): Record<string, unknown> | undefined {
    if (this.metricSections.size === 0 && this.userMetrics.size === 0 && this.recentErrors.length === 0 && this.unplacedSends.size === 0) return undefined;
    const out: Record<string, unknown> = {};
    for (const [section, supplier] of this.metricSections) {
      try {
        out[section] = supplier();
      } catch (err) {
        this.errors.warn({ err, section }, 'a metrics supplier threw; section left out');
      }
    }
    if (this.userMetrics.size > 0) out.user = this.userMetrics.snapshot();
    if (this.recentErrors.length > 0) out.errors = [...this.recentErrors];
    if (this.unplacedSends.size > 0) out.unplacedTargets = [...this.unplacedSends.values()].map((u) => ({ ...u }));
    return out;
  }

  /** The worker applied a new assignment: executors that route re-read placements (and call this). */
  placementChanged(): void {
    for (const u of this.unplacedSends.values()) u.reason = this.host.placementOf(u.component).reason ?? u.reason;
  }

  /**
   * Counts a tuple that could not reach `target` on `stream` (no running task for it) and returns the scheduler's
   * reason. The first one, and then one every 10 s, is reported as this component's error, with the count so far: a
   * steady stream of them must not flood the log or push the component's other errors out of the heartbeat.
   */
  protected countUnplaced(stream: string, target: string): string {
    const key = `${stream}\u0000${target}`;
    let u = this.unplacedSends.get(key);
    if (!u) {
      u = { component: target, stream, tuples: 0, reason: this.host.placementOf(target).reason ?? 'no running task' };
      this.unplacedSends.set(key, u);
    }
    u.tuples++;
    const now = performance.now();
    if (now - this.unplacedReportedAt >= UNPLACED_REPORT_MS) {
      this.unplacedReportedAt = now;
      const err = new TargetUnplacedError(this.component, stream, target, u.tuples, u.reason);
      this.reportError(err, 'tuples to a component with no running task failed at once');
    }
    return u.reason;
  }

  /** Logs an error of the component (rate-limited) and keeps it for the heartbeat, where nimbus and the UI show it. */
  protected reportError(err: unknown, msg: string, extra: object = {}): void {
    this.errors.warn({ err, ...extra }, msg);
    this.recentErrors.push({ time: Date.now(), error: describeError(err, msg) });
    if (this.recentErrors.length > MAX_REPORTED_ERRORS) this.recentErrors.shift();
  }

  /** Logs how many repeated errors the rate limit held back (at stop, so the last flood is counted). */
  flushLogs(): void {
    this.errors.flush();
  }

  /** Whether this task takes data tuples (a spout and an acker take none: one arriving for them was forged). */
  readonly takesTuples: boolean = true;

  /** Queues a data tuple. */
  enqueue(t: RuntimeTuple): void {
    this.queue.push(t);
  }

  /**
   * Queues a run of ack-protocol messages; false (the run dropped, logged rate-limited) for a kind this task does not
   * take — a reply to a bolt, an init to a spout — so a forged or misdirected frame never reaches the ack logic.
   */
  enqueueAcks(m: AckMessages): boolean {
    if (this.acceptsAcks(m.kind)) {
      this.ackQueue.push(m);
      return true;
    }
    this.rejectedAcks++;
    this.errors.warn({ kind: m.kind, from: m.src, rejected: this.rejectedAcks }, 'dropped ack-protocol messages of a kind this task does not take');
    return false;
  }

  /** Runs of ack messages dropped by `enqueueAcks`. */
  rejectedAcks = 0;

  /** Whether this task takes ack-protocol messages of `kind` (ackers and spouts override). */
  acceptsAcks(_kind: AckKind): boolean {
    return false;
  }

  /** 1 while an async user call is in progress (the tuple in service), else 0. */
  get inService(): number {
    return this.busy ? 1 : 0;
  }

  get queueDepth(): number {
    return this.queue.length + this.parked.tuples + this.ackQueue.length;
  }

  /** Data tuples waiting for this task: queued and parked. */
  get pendingInput(): number {
    return this.queue.length + this.parked.tuples;
  }

  protected congested(): boolean {
    // The checkpoint spout's tuples are control traffic, like acks: held behind an overloaded task they would hold
    // the commits that release the data (a stateful bolt acks at a commit, a persistent window too), and the
    // topology would stall. It emits one tuple per interval, so never holding it costs no memory.
    if (this.component === CHECKPOINT_COMPONENT) return false;
    return this.downstream.length > 0 && this.host.isCongested(this.downstream);
  }

  /** Runs a user call that may return a promise; `after` runs once it settled. */
  protected invoke(call: () => unknown, after: (err: unknown) => void): void {
    let result: unknown;
    try {
      result = call();
    } catch (err) {
      after(err);
      return;
    }
    if (result instanceof Promise) {
      this.busy = true;
      result.then(
        () => this.settle(after, undefined),
        (err: unknown) => this.settle(after, err ?? new Error('rejected')),
      );
    } else {
      after(undefined);
    }
  }

  private settle(after: (err: unknown) => void, err: unknown): void {
    this.busy = false;
    after(err);
    this.host.wake();
  }
}

/** The message and the first stack frames: enough to find the line, small enough for a heartbeat. */
function describeError(err: unknown, context: string): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return `${context}: ${text.split('\n').slice(0, 6).join('\n')}`.slice(0, 2000);
}
