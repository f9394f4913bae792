/**
 * Tuples not worth executing (issue 28 item 3): a tracked tuple whose tree
 * started longer ago than the message timeout has been timed out by its spout,
 * which replays it (or has given it up) — executing this copy only runs the
 * work twice and sends acks for a tree nobody waits for. A cut link's queue
 * releases such tuples by the thousand when it heals. Each tuple carries when
 * its oldest root was emitted (RuntimeTuple.treeStart, whole seconds; between
 * workers, the frame's tree time, transport/frame-tree-time.ts); the receiving worker drops
 * one older than the longest message timeout of the topology plus a margin,
 * counts it and logs, rate-limited. Untracked tuples are never dropped: no
 * spout replays them.
 *
 * Clocks: the time is the spout host's wall clock, compared with this worker's.
 * A receiver whose clock runs behind only drops less (a tuple looks younger). A
 * receiver whose clock runs ahead sees every tuple older by the skew: a fresh
 * tuple is dropped only when the skew exceeds timeout + margin, and then its
 * tree's replays would be too — so the margin and the timeout together are the
 * skew the rule tolerates (docs/faults.md, "Network partitions"). Frames whose trees
 * lie ahead of this worker's clock by more than the margin are a sign of such
 * skew on the way back: logged, rate-limited, naming the sender.
 * `topology.stale.tuple.margin.secs: null` turns the rule off (Storm's way:
 * Storm executes every tuple it receives).
 */
import type { Logger } from '../../common/logger.js';
import { RateLimitedLog } from '../../common/logger.js';
import { NO_TREE_START, TREE_EPOCH_S, msOfTreeStart } from '../transport/frame-tree-time.js';

export interface StaleTupleOptions {
  /** The longest `topology.message.timeout.secs` of the topology's components, in ms. */
  messageTimeoutMs: number;
  /** `topology.stale.tuple.margin.secs` in ms; null: never drop. */
  marginMs: number | null;
  /** Wall-clock ms (the injectable clock of tests). */
  now: () => number;
}

export class StaleTuples {
  /** Tracked tuples dropped as stale, since the worker started. */
  dropped = 0;
  private readonly maxAgeMs: number | null;
  private readonly dropLog: RateLimitedLog;
  private readonly skewLog: RateLimitedLog;

  constructor(
    private readonly opts: StaleTupleOptions,
    log: Logger,
  ) {
    this.maxAgeMs = opts.marginMs === null ? null : opts.messageTimeoutMs + opts.marginMs;
    this.dropLog = new RateLimitedLog(log, 5, 10_000, opts.now);
    this.skewLog = new RateLimitedLog(log, 1, 60_000, opts.now);
  }

  /** This worker's wall clock. */
  now(): number {
    return this.opts.now();
  }

  /**
   * A tuple whose tree start (RuntimeTuple.treeStart, rounded up to its second) is below this is stale, as a tree
   * start with a fraction; read once per frame or slice, not per tuple. -Infinity when the rule is off.
   */
  cutoff(now = this.opts.now()): number {
    return this.maxAgeMs === null ? -Infinity : (now - this.maxAgeMs) / 1000 - TREE_EPOCH_S;
  }

  /** Counts `n` tracked tuples dropped as stale; `treeStart`: their trees' start, for the log. */
  drop(n: number, treeStart: number, context: Readonly<Record<string, unknown>>): void {
    this.dropped += n;
    this.dropLog.warn(
      { ...context, tuples: n, ageMs: Math.round(this.opts.now() - msOfTreeStart(treeStart)), maxAgeMs: this.maxAgeMs, staleTuples: this.dropped },
      'dropped tuples whose trees are older than the message timeout (their spouts have timed them out and replay them)',
    );
  }

  /** A frame's trees started at `treeStart` by its sender's clock: far ahead of ours, the two clocks differ (logged, rate-limited). */
  checkClock(treeStart: number, now: number, from: number): void {
    if (this.maxAgeMs === null || treeStart === NO_TREE_START) return;
    const aheadMs = msOfTreeStart(treeStart) - now;
    // One second of it is the frame field's rounding (frame-tree-time.ts).
    if (aheadMs <= 1000 + (this.opts.marginMs ?? 0)) return;
    this.skewLog.warn(
      { from, aheadMs: Math.round(aheadMs), maxAgeMs: this.maxAgeMs },
      "a peer's tuples start in this worker's future: the two hosts' clocks differ; where a receiver's clock runs ahead of its spouts' by more than the message timeout plus topology.stale.tuple.margin.secs, it drops fresh tuples as stale (sync the clocks, or set the margin to null)",
    );
  }
}
