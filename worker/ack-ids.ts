/**
 * Random 64-bit ids for the XOR ack tree (Storm uses random longs): drawn in
 * blocks from the OS's CSPRNG so each id costs an array read, never zero.
 */
import { randomFillSync } from 'node:crypto';

const BLOCK = 4096;
const pool = new BigUint64Array(BLOCK);
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

/** Stable small number from a 64-bit id, to pick an acker task. */
export function idBucket(id: bigint, n: number): number {
  return Number(id & 0xffffffffn) % n;
}
