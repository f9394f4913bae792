/**
 * The bookkeeping between a queue and hstorm's acking, for any queue spout
 * (Redis Streams, RabbitMQ, and a Kafka spout later): which messages the spout
 * holds, which are out in a tuple tree, which wait for a retry and when.
 *
 * A message taken from the broker is `offer`ed under its broker key (entry id,
 * delivery tag); `next` hands out what is due — retries whose back-off has
 * passed first, then fresh messages in arrival order — and the spout emits it
 * with the key as message id. The tree's `ack` is the moment to acknowledge it
 * to the broker (`acked` returns the message for that); a `fail` schedules a
 * retry with storm-kafka-client's back-off (retry-backoff.ts) or, past
 * `maxRetries`, hands it out once more marked `exhausted`, for the spout to
 * send to its failure stream or drop and count. Everything held counts
 * against `maxHeld` (the spout's topology.max.spout.pending): `room` says how
 * many more the spout may take from the broker, so the broker's view of what
 * is unacknowledged never exceeds it.
 */
import { realConnectorClock, type ConnectorClock } from './connector-clock.js';
import { DueQueue } from './due-queue.js';
import { mayRetry, retryDelayMs, type RetryOptions } from './retry-backoff.js';

type State = 'fresh' | 'emitted' | 'waiting';

interface Entry<M> {
  key: string;
  msg: M;
  fails: number;
  state: State;
  /** Given up on (retries used up, or undecodable): goes to the failure stream or is dropped. */
  exhausted: boolean;
  /** Why it was given up on. */
  reason: string | null;
}

/** A message to emit now. */
export interface Emission<M> {
  key: string;
  msg: M;
  /** 0 the first time, then the number of failures so far. */
  attempt: number;
  /** True when the message is given up on: emit it on the failure stream, or drop it (`acked`) and count it. */
  exhausted: boolean;
  reason: string | null;
}

export type FailOutcome = 'retry' | 'exhausted' | 'unknown';

export class SpoutAcking<M> {
  private readonly held = new Map<string, Entry<M>>();
  private fresh: Entry<M>[] = [];
  private freshHead = 0;
  private readonly due = new DueQueue<Entry<M>>();
  /** Held messages never emitted yet (kept as a count: the spout asks on every ack). */
  private freshCount = 0;

  constructor(
    private readonly maxHeld: number,
    private readonly retry: RetryOptions,
    private readonly clock: ConnectorClock = realConnectorClock,
  ) {
    if (!(maxHeld >= 1)) throw new RangeError(`maxHeld must be at least 1, got ${maxHeld}`);
  }

  /** Messages held: taken from the broker and not yet acknowledged to it. */
  get size(): number {
    return this.held.size;
  }

  /** How many more messages may be taken from the broker now. */
  room(): number {
    return Math.max(0, this.maxHeld - this.held.size);
  }

  has(key: string): boolean {
    return this.held.has(key);
  }

  /**
   * A message taken from the broker. False when the key is held already (the broker delivered it again, say to a
   * pending-entries read after a reconnect): the copy held is the one that counts. `poison` gives a message up at
   * once (it cannot be decoded): it goes straight to the failure stream or is dropped.
   */
  offer(key: string, msg: M, poison: string | null = null): boolean {
    if (this.held.has(key)) return false;
    const e: Entry<M> = { key, msg, fails: 0, state: 'fresh', exhausted: poison !== null, reason: poison };
    this.held.set(key, e);
    this.fresh.push(e);
    this.freshCount++;
    return true;
  }

  /** The next message to emit: a retry that has fallen due, else the oldest fresh one; undefined when none. */
  next(): Emission<M> | undefined {
    const now = this.clock.now();
    let e: Entry<M> | undefined;
    while ((e = this.due.popDue(now))) if (this.held.get(e.key) === e && e.state === 'waiting') return this.emit(e);
    while (this.freshHead < this.fresh.length) {
      e = this.fresh[this.freshHead++]!;
      if (this.freshHead > 1024 && this.freshHead * 2 > this.fresh.length) {
        this.fresh = this.fresh.slice(this.freshHead);
        this.freshHead = 0;
      }
      if (this.held.get(e.key) === e && e.state === 'fresh') {
        this.freshCount--;
        return this.emit(e);
      }
    }
    return undefined;
  }

  private emit(e: Entry<M>): Emission<M> {
    e.state = 'emitted';
    return { key: e.key, msg: e.msg, attempt: e.fails, exhausted: e.exhausted, reason: e.reason };
  }

  /**
   * The tree of `key` completed (or the spout drops an exhausted message): it is no longer held. Returns the
   * message, to acknowledge to the broker; undefined for a key not out in a tree (one forgotten after a reconnect).
   */
  acked(key: string): M | undefined {
    const e = this.held.get(key);
    if (!e || e.state !== 'emitted') return undefined;
    this.held.delete(key);
    return e.msg;
  }

  /**
   * The tree of `key` failed. `retry`: it will come out of `next` again after its back-off; `exhausted`: retries are
   * used up and it comes out of `next` at once, marked exhausted. A failure-stream tuple that fails is retried with
   * back-off for ever: giving up on it would lose the message. `unknown`: not a key out in a tree.
   */
  failed(key: string): FailOutcome {
    const e = this.held.get(key);
    if (!e || e.state !== 'emitted') return 'unknown';
    e.fails++;
    const now = this.clock.now();
    if (e.exhausted || mayRetry(e.fails, this.retry)) {
      e.state = 'waiting';
      this.due.push(e, now + retryDelayMs(e.fails, this.retry));
      return 'retry';
    }
    e.exhausted = true;
    e.reason = `failed ${e.fails} time(s), more than maxRetries (${this.retry.maxRetries})`;
    e.state = 'waiting';
    this.due.push(e, now);
    return 'exhausted';
  }

  /**
   * Lets go of held messages without acknowledging them (all, or those `which` picks): the broker will deliver them
   * again — a RabbitMQ channel that died returned its unacked messages to the queue. Their trees still out are
   * ignored when they complete. Returns how many were let go.
   */
  forget(which: (key: string, msg: M) => boolean = () => true): number {
    let n = 0;
    for (const [key, e] of this.held) {
      if (which(key, e.msg)) {
        this.held.delete(key);
        if (e.state === 'fresh') this.freshCount--;
        n++;
      }
    }
    if (this.held.size === 0) {
      this.fresh = [];
      this.freshHead = 0;
      this.due.clear();
    }
    return n;
  }

  /** Held messages not emitted yet. */
  get unemitted(): number {
    return this.freshCount;
  }

  /** How many held messages are in each state, for the spout's metrics. */
  counts(): { fresh: number; emitted: number; waiting: number } {
    const c = { fresh: 0, emitted: 0, waiting: 0 };
    for (const e of this.held.values()) c[e.state]++;
    return c;
  }
}
