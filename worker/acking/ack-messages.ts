/**
 * The acking protocol's messages (Storm's __ack_init / __ack_ack / __ack_fail
 * streams) as hstorm moves them: never as tuples, but as runs of one kind of
 * message from one task, each message a fixed number of uint32 words:
 *
 *   kind    from → to        words per message
 *   INIT    spout → acker    root lo, root hi, xor lo, xor hi   (the spout task is the run's source)
 *   ACK     bolt  → acker    root lo, root hi, val lo, val hi   (val: the tuple's edge XOR its children's)
 *   FAIL    bolt  → acker    root lo, root hi
 *   ACKED   acker → spout    root lo, root hi
 *   FAILED  acker → spout    root lo, root hi
 *   RESET   bolt  → acker,   root lo, root hi                   (OutputCollector.resetTimeout: the acker
 *           acker → spout                                         refreshes the tree and tells its spout)
 *
 * Between workers a run is a group of the frame's ack section (the kind is its
 * number on the wire, docs/wire-format.md); inside one worker the spouts and
 * bolts call the acker beside them (LocalAcker) and the acker hands a spout
 * beside it its replies as one run per pass. Either way the receiver checks
 * only the kind: the words were counted by the frame's reader, and any uint32
 * is a well-formed half.
 */

export const INIT = 1;
export const ACK = 2;
export const FAIL = 3;
export const ACKED = 4;
export const FAILED = 5;
/** Storm's `__ack_reset_timeout`: one kind both ways, as Storm uses one stream both ways. */
export const RESET = 6;
export type AckKind = typeof INIT | typeof ACK | typeof FAIL | typeof ACKED | typeof FAILED | typeof RESET;

/** Words per message of `kind`; 0 for a number that is no kind. */
export function ackArity(kind: number): number {
  return kind === INIT || kind === ACK ? 4 : kind === FAIL || kind === ACKED || kind === FAILED || kind === RESET ? 2 : 0;
}

/** Messages an acker takes. */
export function isAckerKind(kind: AckKind): boolean {
  return kind === INIT || kind === ACK || kind === FAIL || kind === RESET;
}

/** A run of messages of one kind from one task: `words.length` is a multiple of `ackArity(kind)`. */
export interface AckMessages {
  readonly kind: AckKind;
  readonly src: number;
  readonly words: Uint32Array;
}
