/**
 * The runtime's tuple: the read-only Tuple a bolt sees (topology-sdk/tuple.ts,
 * its getters in topology-sdk/internal/value-tuple.ts) plus the ack
 * bookkeeping only executors touch (`anchors`, `ackLo`/`ackHi`). Kept out of the
 * SDK's exports so that a topology can neither build one nor corrupt its ack
 * ids; executors receive these and narrow the Tuple a bolt hands back
 * (collector.ack/fail, emit anchors) to this class.
 */
import type { Fields } from '../../topology-sdk/fields.js';
import type { MessageId } from '../../topology-sdk/tuple.js';
import { ValueTuple } from '../../topology-sdk/internal/value-tuple.js';
import { idOfHalves } from '../acking/ack-ids.js';
import { NO_TREE_START } from '../transport/frame-tree-time.js';

/**
 * Ack-tree ids this tuple carries, each 64-bit id as its uint32 halves (acking/ack-ids.ts): per anchor four words,
 * [root low, root high, edge low, edge high, …]; null when the tuple is not tracked.
 */
export type AnchorIds = number[] | null;

export class RuntimeTuple extends ValueTuple {
  /** XOR of the edge ids of tuples anchored to this one (runtime bookkeeping), low and high half. */
  ackLo = 0;
  ackHi = 0;
  /**
   * When the oldest spout tuple this one descends from was emitted (its tree's start; a spout tuple's own emit), as a
   * tree start (transport/frame-tree-time.ts: seconds since 2020, rounded up): an executor drops a tracked tuple whose
   * tree the spout has timed out by now (fencing/stale-tuples.ts). NO_TREE_START: not known (untracked, a tool's).
   */
  treeStart = NO_TREE_START;

  constructor(
    values: readonly unknown[],
    fields: Fields,
    sourceComponent: string,
    sourceStreamId: string,
    sourceTask: number,
    readonly anchors: AnchorIds,
  ) {
    super(values, fields, sourceComponent, sourceStreamId, sourceTask);
  }

  /** The ack-tree ids this tuple carries (root id → edge id), empty when it is not tracked: Storm's MessageId. */
  override getMessageId(): MessageId {
    const anchorsToIds = new Map<bigint, bigint>();
    const a = this.anchors ?? [];
    for (let i = 0; i + 3 < a.length; i += 4) anchorsToIds.set(idOfHalves(a[i]!, a[i + 1]!), idOfHalves(a[i + 2]!, a[i + 3]!));
    return { anchorsToIds };
  }
}
