/**
 * How old a frame's trees are, in the header's bytes 2–3 (frame-layout.ts):
 * the spout-side emit time of the oldest root of the frame's youngest tracked
 * tuple, in whole seconds of the wall clock, rounded up, modulo 65 535, plus
 * one; 0 when the frame holds no tracked tuple or one whose time is unknown
 * (a tool's). Every tracked tuple of the frame descends from a root at least
 * that old, so a receiver may treat each as born then: it never takes a tuple
 * for older than it is (fencing/stale-tuples.ts drops tuples whose tree the
 * spout has already timed out and replayed).
 *
 * Why one u16 per frame and not a column per tuple: it costs no byte and no
 * offset (the two bytes were reserved), one max() per tuple on the way out
 * and one subtraction per frame on the way in; the frames it is meant for —
 * what a cut link's queue releases when it heals — were sealed in one moment,
 * so their tuples are of one age anyway. Seconds are enough: the drop rule is
 * in seconds (topology.message.timeout.secs), and 65 535 of them let a
 * receiver tell past from future for ages up to ±9 hours.
 */

/** No tracked tuple, or a tracked tuple whose tree's time is unknown. */
export const NO_TREE_TIME = 0;
const PERIOD = 0xffff;
const HALF = PERIOD >> 1;

/** The header field for a frame whose youngest tracked tuple's oldest root was emitted at `ms` (wall clock; ±Infinity: none or unknown). */
export function treeTimeField(ms: number): number {
  if (!Number.isFinite(ms)) return NO_TREE_TIME;
  return (Math.ceil(ms / 1000) % PERIOD) + 1;
}

/**
 * The emit time a header field stands for, in ms on the receiver's wall clock `nowMs` (Infinity for NO_TREE_TIME):
 * the field names a second modulo 65 535, read as the one nearest to now — up to ~9 hours back or ahead (ahead:
 * the sender's clock runs ahead of this one).
 */
export function treeTimeOf(field: number, nowMs: number): number {
  if (field === NO_TREE_TIME) return Infinity;
  const nowS = Math.floor(nowMs / 1000);
  let back = (((nowS - (field - 1)) % PERIOD) + PERIOD) % PERIOD;
  if (back > HALF) back -= PERIOD;
  return (nowS - back) * 1000;
}
