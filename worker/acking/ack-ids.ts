/**
 * Random 64-bit ids for the XOR ack tree (Storm uses random longs): drawn in
 * blocks from the OS's CSPRNG so each id costs an array read, never zero.
 */
import { randomFillSync } from 'node:crypto';

const BLOCK = 4096;
const pool = new BigUint64Array(BLOCK);
/** The pool as uint32 halves (little-endian: [2i] low, [2i + 1] high), for ids built from halves. */
const halves = new Uint32Array(pool.buffer);
let next = BLOCK;

export function randomId64(): bigint {
  for (;;) {
    if (next === BLOCK) {
      randomFillSync(pool);
      next = 0;
    }
    const id = pool[next++]!;
    if (id !== 0n) return id;
  }
}

/** Reads a bigint's halves without allocating (ToBigUint64 wraps anything into 64 bits). */
const scratch64 = new BigUint64Array(1);
const scratch32 = new Uint32Array(scratch64.buffer);

/**
 * A random non-zero id whose `idBucket(id, n)` is `bucket`: the low half is
 * moved to the nearest value ≡ bucket (mod n) below it, so the id stays random
 * in its other 64 − log2(n) bits. A spout uses it to pick roots whose acker
 * (chosen by everyone from the root alone, as in Storm) runs in its own worker.
 * `high`: the high half to use instead of a random one (a spout's sequence
 * number, see PendingMessages); the low half stays random.
 */
export function randomIdInBucket(bucket: number, n: number, high?: number): bigint {
  for (;;) {
    if (next === BLOCK) {
      randomFillSync(pool);
      next = 0;
    }
    const i = next++ * 2;
    let lo = halves[i]! - (halves[i]! % n) + bucket;
    if (lo > 0xffffffff) lo -= n;
    const hi = high === undefined ? halves[i + 1]! : high >>> 0;
    if (lo === 0 && hi === 0) continue;
    scratch32[0] = lo;
    scratch32[1] = hi;
    return scratch64[0]!;
  }
}

/** Stable small number from a 64-bit id, to pick an acker task: the low half mod n (read through a typed array, no BigInt arithmetic). */
export function idBucket(id: bigint, n: number): number {
  scratch64[0] = id;
  return scratch32[0]! % n;
}
