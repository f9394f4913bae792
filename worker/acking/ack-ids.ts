/**
 * Random 64-bit ids for the XOR ack tree (Storm uses random longs), held as
 * two uint32 halves — low, high — from emit to acker to spout: a BigInt per
 * id costs an allocation at every draw, XOR and decode, and msgpackr range
 * checks on the wire (docs/benchmarks.md, "Acking, fourth round: the wire").
 * Drawn from xoshiro128** (xoshiro128.ts) seeded from the OS's CSPRNG once
 * per process: ids must be unlikely to collide within a tree, not
 * unpredictable — Storm draws them from java.util.Random — and the generator
 * costs a few integer operations where blocks from the CSPRNG cost a system
 * call and a copy per 8 192 halves (docs/benchmarks.md, "Acking, sixth
 * round"). An id is never zero.
 *
 * An id in a list of ids takes two places, low half first: a tuple's anchors
 * are [root low, root high, edge low, edge high, …] (executor/runtime-tuple.ts).
 * Halves are always normalised to uint32 (`>>> 0` after an XOR, which yields
 * an int32) so that two halves compare with `===`.
 */
import { randomFillSync } from 'node:crypto';
import { Xoshiro128 } from './xoshiro128.js';

/** This process's generator, seeded from the CSPRNG; one bit set so the seed is never all zero (Xoshiro128 refuses it). */
const seed = randomFillSync(new Uint32Array(4));
seed[0] = seed[0]! | 1;
const generator = new Xoshiro128(seed);

/** A random uint32: one half of an id. */
export function randomHalf(): number {
  return generator.next();
}

/** Writes a random non-zero id into `out` at `at` (low half) and `at + 1` (high half). */
export function writeRandomId(out: number[], at: number): void {
  let lo = randomHalf();
  let hi = randomHalf();
  while (lo === 0 && hi === 0) {
    lo = randomHalf();
    hi = randomHalf();
  }
  out[at] = lo;
  out[at + 1] = hi;
}

/**
 * The bits of a low half that pick its acker: 30, so that the value is a small integer (a Smi) and its modulo an
 * integer one — a uint32 above 2^30 is a double in V8, and a double modulo costs twice as much (this runs twice per
 * acked tuple).
 */
const BUCKET_BITS = 0x3fffffff;

/**
 * A random low half whose `idBucket(low, n)` is `bucket`: its bucket bits moved to the nearest value ≡ bucket (mod n)
 * below them, so it stays random in its other 32 − log2(n) bits. A spout uses it to pick roots whose acker (chosen by
 * everyone from the root alone, as in Storm) runs in its own worker; their high half is the spout's running number
 * (PendingMessages).
 */
export function randomLowInBucket(bucket: number, n: number): number {
  const r = randomHalf();
  let m = (r & BUCKET_BITS) - ((r & BUCKET_BITS) % n) + bucket;
  if (m > BUCKET_BITS) m -= n;
  return ((r & ~BUCKET_BITS) | m) >>> 0;
}

/** Stable small number from an id, to pick an acker task: the low 30 bits of its low half, mod n. */
export function idBucket(low: number, n: number): number {
  return (low & BUCKET_BITS) % n;
}

/** Splits a bigint into halves without allocating (ToBigUint64 wraps anything into 64 bits). */
const scratch64 = new BigUint64Array(1);
const scratch32 = new Uint32Array(scratch64.buffer);

/** Writes the halves of a 64-bit id given as a bigint (Storm's long, as a tool or test holds it) into `out` at `at`. */
export function writeHalvesOf(id: bigint, out: number[], at: number): void {
  scratch64[0] = id;
  out[at] = scratch32[0]!;
  out[at + 1] = scratch32[1]!;
}

/** The id of two halves as a bigint: for Storm's MessageId and for tools, never the hot path. */
export function idOfHalves(low: number, high: number): bigint {
  scratch32[0] = low;
  scratch32[1] = high;
  return scratch64[0]!;
}

/** A random non-zero id as a bigint (tests and tools that think in Storm's longs). */
export function randomId64(): bigint {
  const out = [0, 0];
  writeRandomId(out, 0);
  return idOfHalves(out[0]!, out[1]!);
}
