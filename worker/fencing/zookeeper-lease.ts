/**
 * The sending side of fencing (issue 28): a worker that has not reached
 * ZooKeeper for longer than `nimbus.task.timeout.secs` stops its spouts from
 * emitting. Nimbus reassigns a worker's executors once its heartbeats or its
 * supervisor's session are gone for that long (or the session timeout, which
 * is shorter), so past that bound another copy of each of its spout tasks may
 * be running on another node; a worker cut off from ZooKeeper cannot know, so
 * it stops feeding new trees in: two copies of a spout never emit together
 * for much longer than the bound. Everything else goes on — bolts execute
 * what they have, acks and fails still reach the spouts, which keep their
 * pending tuples and time them out — so nothing is lost or restarted.
 *
 * The lease is renewed while the worker's ZooKeeper session is connected
 * (its client's pings are answered) and by every metrics record it writes
 * (every `topology.stats.report.secs`, too seldom on its own); once expired it ends only when the worker reads its assignment
 * again and finds itself in it (`sawAssignment(true)`): a renewed heartbeat
 * alone does not say that nimbus kept this worker's slot. A whole-ZooKeeper
 * outage longer than the bound pauses every spout the same way until
 * ZooKeeper answers (docs/faults.md, "Network partitions"); shorter ones, the
 * usual restart, change nothing.
 */
export type LeaseChange = 'pause' | 'resume' | null;

export class ZooKeeperLease {
  private lastContact: number;
  private expired = false;

  constructor(
    /** `nimbus.task.timeout.secs` in ms. */
    readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastContact = now();
  }

  /** Whether the spouts are paused for want of ZooKeeper. */
  get paused(): boolean {
    return this.expired;
  }

  /** Milliseconds since ZooKeeper last answered. */
  get silenceMs(): number {
    return this.now() - this.lastContact;
  }

  /** ZooKeeper answered: a record was written, or the session is connected. */
  contact(): void {
    this.lastContact = this.now();
  }

  /** Checked periodically: 'pause' the moment the silence passes the timeout. */
  check(): LeaseChange {
    if (this.expired || this.silenceMs <= this.timeoutMs) return null;
    this.expired = true;
    return 'pause';
  }

  /** The worker read its assignment (a ZooKeeper answer too); `mine`: this worker holds a slot in it. 'resume' when that ends a pause. */
  sawAssignment(mine: boolean): LeaseChange {
    this.contact();
    if (!this.expired || !mine) return null;
    this.expired = false;
    return 'resume';
  }
}
