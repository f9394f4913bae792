/**
 * Which checkpoint tuples may overtake the data queued before them at a
 * bolt. A PREPARE may not: it is the barrier a bolt saves its state at, so it
 * must follow every tuple that arrived before it. COMMIT, ROLLBACK and
 * INITSTATE carry no such order: the checkpoint spout sends a COMMIT only once
 * every bolt has handled the PREPARE of its transaction (that tree was fully
 * acked), so nothing still queued belongs to that transaction; a ROLLBACK
 * restores the last commit and fails what was held since, whichever data
 * follows; an INITSTATE releases the tuples a bolt held until its state was
 * loaded. Put ahead of the data, they no longer wait behind a full queue at
 * every hop, and a commit releases the acks it holds sooner — which is what
 * bounds a stateful topology's throughput (docs/benchmarks.md, State).
 *
 * Storm queues its checkpoint tuples with the data (one receive queue per
 * executor): hstorm differs here, and says so in docs/state.md.
 */
import { CHECKPOINT_STREAM } from '../../common/topology-def.js';
import type { RuntimeTuple } from './runtime-tuple.js';

/** Whether `t` is a checkpoint tuple that goes to the front of its bolt's queue. */
export function overtakesData(t: RuntimeTuple): boolean {
  if (t.sourceStreamId !== CHECKPOINT_STREAM) return false;
  const action = t.values[1];
  return action === 'COMMIT' || action === 'ROLLBACK' || action === 'INITSTATE';
}
