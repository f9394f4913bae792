/**
 * The receiving side of fencing (issue 28): which frames a worker accepts, by
 * their sender's stamp (transport/frame-stamp.ts) against the assignment this
 * worker follows.
 *   - another topology's frame (its tag is not ours; an unstamped frame from a
 *     tool has none): foreign, dropped;
 *   - a frame of our epoch or a newer one: admitted (a peer that read the next
 *     assignment first is not wrong);
 *   - a frame of an older epoch from a worker the current assignment has no
 *     slot for: stale, dropped. That is a worker stranded by a partition:
 *     nimbus moved its executors elsewhere, it has not read that yet, and what
 *     it sends — replays of trees whose spout or acker moved, acks for them —
 *     would only run work twice;
 *   - a frame of an older epoch from a worker still assigned: admitted for
 *     `graceMs` after this worker took the newer epoch (peers read a new
 *     assignment at slightly different moments; a rebalance must not drop
 *     their frames), stale after that.
 * Storm has no such check: its workers accept any well-formed message on their
 * port (docs/faults.md, "Network partitions").
 */
import type { FrameStamp } from '../transport/frame-stamp.js';

/** How long a worker still assigned may send on the previous epoch after this worker took the new one: a slow ZooKeeper read, not a partition. */
export const FENCE_GRACE_MS = 5000;

export type FenceVerdict = 'admit' | 'foreign' | 'stale';

export class EpochFence {
  private epoch = 0;
  private since: number;
  private assigned: ReadonlySet<number> = new Set();

  constructor(
    /** tagOf(this topology's id). */
    private readonly topologyTag: number,
    private readonly graceMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
  }

  /** The assignment this worker now follows: its epoch and the tags of the worker keys it holds. */
  adopt(epoch: number, workerTags: Iterable<number>): void {
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.since = this.now();
    }
    this.assigned = new Set(workerTags);
  }

  judge(stamp: Readonly<FrameStamp>): FenceVerdict {
    if (stamp.topology !== this.topologyTag) return 'foreign';
    if (stamp.epoch >= this.epoch) return 'admit';
    if (!this.assigned.has(stamp.worker)) return 'stale';
    return this.now() - this.since > this.graceMs ? 'stale' : 'admit';
  }
}
