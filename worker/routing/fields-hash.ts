/**
 * The hash behind fields grouping. It must give the same answer in every
 * worker process, so it is computed from the values themselves (FNV-1a over
 * their text), never from object identity. Another `seed` gives an
 * independent second hash (partial key grouping's second candidate).
 */
export function hashValues(values: readonly unknown[], indexes: readonly number[], seed = 0x811c9dc5): number {
  let h = seed;
  for (const i of indexes) {
    const v = values[i];
    const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v) : JSON.stringify(v, big) ?? 'undefined';
    for (let k = 0; k < s.length; k++) {
      h ^= s.charCodeAt(k);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff; // separator, so ("ab","c") and ("a","bc") differ
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}

/** MurmurHash3's finalizer: every output bit depends on every input bit (FNV's low bits do not on the high ones). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
