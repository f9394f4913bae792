/**
 * xoshiro128** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2021): 128 bits of state, uint32 outputs, period 2^128 − 1.
 * Fast and statistically sound, not unpredictable: for ack ids, which must
 * only be unlikely to collide (acking/ack-ids.ts), never for secrets.
 */
export class Xoshiro128 {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** `seed`: four uint32 words, not all zero (a fixed point: from there every output is 0). */
  constructor(seed: ArrayLike<number>) {
    if (seed.length !== 4 || (seed[0]! | seed[1]! | seed[2]! | seed[3]!) === 0) throw new RangeError('xoshiro128** needs a seed of four words, not all zero');
    this.s0 = seed[0]! | 0;
    this.s1 = seed[1]! | 0;
    this.s2 = seed[2]! | 0;
    this.s3 = seed[3]! | 0;
  }

  /** The next output, a uint32. */
  next(): number {
    const m = Math.imul(this.s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9);
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = (this.s3 << 11) | (this.s3 >>> 21);
    return result >>> 0;
  }
}
