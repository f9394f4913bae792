/**
 * Square float32 matrices stored row-major in a Float32Array, and the cheap
 * checksum the sink verifies: sum(A·B) = Σ_k colSum(A)_k · rowSum(B)_k, which
 * costs O(n²) instead of the O(n³) product.
 */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    // xorshift32: fast, deterministic, good enough for test data
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

export function randomMatrix(n: number, rand: () => number): Float32Array {
  const m = new Float32Array(n * n);
  for (let i = 0; i < m.length; i++) m[i] = rand() * 2 - 1;
  return m;
}

/** C = A·B (i-k-j loop order: streams through rows of B, cache friendly). */
export function multiply(a: Float32Array, b: Float32Array, n: number): Float32Array {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let k = 0; k < n; k++) {
      const aik = a[row + k]!;
      const bk = k * n;
      for (let j = 0; j < n; j++) c[row + j]! += aik * b[bk + j]!;
    }
  }
  return c;
}

export function sum(m: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) s += m[i]!;
  return s;
}

/** Expected sum of the entries of A·B, from column sums of A and row sums of B. */
export function expectedProductSum(a: Float32Array, b: Float32Array, n: number): number {
  const colA = new Float64Array(n);
  const rowB = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      colA[k]! += a[i * n + k]!;
      rowB[k]! += b[k * n + i]!;
    }
  }
  let s = 0;
  for (let k = 0; k < n; k++) s += colA[k]! * rowB[k]!;
  return s;
}

/** Float32 products accumulate rounding error ~ n·ε·|terms|: compare relative to the magnitude. */
export function checksumMatches(actual: number, expected: number, n: number, magnitude: number): boolean {
  return Math.abs(actual - expected) <= 1e-5 * n * Math.max(1, magnitude);
}
