/**
 * The acks a stateful bolt holds until the commit after them (DESIGN §13; Storm's
 * StatefulBoltExecutor holds them the same way): an input acked by the bolt is
 * acked to its tree only when the state that includes it is committed, and
 * failed (replayed) if that state is rolled back.
 *
 * Storm keeps the tuples. At a checkpoint interval's worth of input (a second of
 * a busy word count is hundreds of thousands of tuples) that keeps every tuple,
 * its values and its ids alive past the young generation, and the garbage
 * collector's copying and promoting cost the stateful word count about three
 * times the CPU per sentence of its Map twin (profile: docs/benchmarks.md,
 * "State"). So the worker's bolt collector offers a HeldAcks that records, at
 * the bolt's ack, only what the acks will say — per root, the acker task and the
 * ids as 32-bit numbers in a typed array — and lets the tuple go. A collector
 * without it (a test's recording collector) gets one that keeps the tuples.
 */
import type { OutputCollector } from '../components.js';
import type { Tuple } from '../tuple.js';

/** Two segments: what was held before the last `seal` (the prepared transaction's), and what was held since. */
export interface HeldAcks {
  /** Holds the ack of `tuple` as the collector's `ack` would send it now (the bolt's acked it: it emits no more anchored to it). */
  hold(tuple: Tuple): void;
  /** PREPARE: everything held so far waits for the next commit. */
  seal(): void;
  /** COMMIT: acks what was sealed; what was held since stays held. */
  ackSealed(): void;
  /** ROLLBACK: fails everything held, sealed or not (the state that included them is discarded). */
  failAll(): void;
  /** Tuples held, sealed or not. */
  readonly size: number;
}

/** The key under which the worker's bolt collector offers a compact HeldAcks (not part of the public collector). */
export const HOLD_ACKS: unique symbol = Symbol('hstorm.holdAcks');

/** A collector that may offer compact held acks. */
export type HoldingCollector = OutputCollector & { [HOLD_ACKS]?: () => HeldAcks };

/** The collector's compact HeldAcks when it has one, else one that keeps the tuples and acks them through it. */
export function heldAcksOf(out: OutputCollector): HeldAcks {
  return (out as HoldingCollector)[HOLD_ACKS]?.() ?? new TupleHeldAcks(out);
}

class TupleHeldAcks implements HeldAcks {
  private held: Tuple[] = [];
  private sealed = 0;

  constructor(private readonly out: OutputCollector) {}

  get size(): number {
    return this.held.length;
  }

  hold(tuple: Tuple): void {
    this.held.push(tuple);
  }

  seal(): void {
    this.sealed = this.held.length;
  }

  ackSealed(): void {
    for (let i = 0; i < this.sealed; i++) this.out.ack(this.held[i]!);
    this.held = this.held.slice(this.sealed);
    this.sealed = 0;
  }

  failAll(): void {
    for (const t of this.held) this.out.fail(t);
    this.held = [];
    this.sealed = 0;
  }
}
