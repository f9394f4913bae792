/**
 * mulberry32: a small, fast, seeded PRNG. Property tests replay a failing case
 * from fast-check's seed, and benchmarks give every policy the same stream, so
 * both need randomness that a seed reproduces (Math.random cannot be seeded).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
