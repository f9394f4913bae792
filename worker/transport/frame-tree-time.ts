/**
 * When a tuple's tree started, as the runtime carries it: whole seconds of the
 * spout host's wall clock since 2020-01-01 UTC, rounded up — a small integer,
 * so a tuple holds it without a boxed number (a double field costs every
 * RuntimeTuple an allocation) — and, between workers, in the frame header's
 * bytes 2–3 (frame-layout.ts): the start of the frame's youngest tracked
 * tuple, modulo 65 535, plus one; 0 when the frame holds no tracked tuple or
 * one whose start is unknown (a tool's). Every tracked tuple of the frame
 * started at or before that second, so a receiver may take each as started
 * then: it never takes a tuple for older than it is (fencing/stale-tuples.ts
 * drops tuples whose tree the spout has already timed out and replayed).
 *
 * Why one u16 per frame and not a column per tuple: it costs no byte and no
 * offset (the two bytes were reserved), one max() per tuple on the way out
 * and one subtraction per frame on the way in; the frames it is meant for —
 * what a cut link's queue releases when it heals — were sealed in one moment,
 * so their tuples are of one age anyway. Seconds are enough: the drop rule is
 * in seconds (topology.message.timeout.secs), and 65 535 of them let a
 * receiver tell past from future for ages up to ±9 hours.
 */

/** The origin of tree starts: 2020-01-01T00:00:00Z, in seconds of the Unix epoch (starts then fit a small integer until 2054). */
export const TREE_EPOCH_S = 1_577_836_800;
/** A tree start not known (untracked tuple, a tool's): later than any real one, so a minimum ignores it and no cutoff reaches it. */
export const NO_TREE_START = 0x3fffffff;
/** The header field of a frame with no tracked tuple, or one whose start is unknown. */
export const NO_TREE_TIME = 0;
const PERIOD = 0xffff;
const HALF = PERIOD >> 1;

/** The tree start of wall-clock `ms` (rounded up to the second). */
export function treeStartOf(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000) - TREE_EPOCH_S);
}

/** Wall-clock ms of a tree start (for logs and tests). */
export function msOfTreeStart(start: number): number {
  return (start + TREE_EPOCH_S) * 1000;
}

/** The header field for a frame whose youngest tracked tuple's tree started at `start` (NO_TREE_START or below 0: none). */
export function treeTimeField(start: number): number {
  if (start < 0 || start >= NO_TREE_START) return NO_TREE_TIME;
  return (start % PERIOD) + 1;
}

/**
 * The tree start a header field stands for, read against the receiver's wall clock `nowMs` (NO_TREE_START for
 * NO_TREE_TIME): the field names a second modulo 65 535, taken as the one nearest to now — up to ~9 hours back or
 * ahead (ahead: the sender's clock runs ahead of this one).
 */
export function treeStartFromField(field: number, nowMs: number): number {
  if (field === NO_TREE_TIME) return NO_TREE_START;
  const now = Math.floor(nowMs / 1000) - TREE_EPOCH_S;
  let back = (((now - (field - 1)) % PERIOD) + PERIOD) % PERIOD;
  if (back > HALF) back -= PERIOD;
  return now - back;
}
