/**
 * The maths of a window, shared by the kernel bolts and the plain-JS one:
 * each reading x becomes the row [x, 1]; the kernel computes M = X'ᵀ·X'
 * over the window's rows (a (d+1)×(d+1) matrix product, the paper's kind of
 * work), whose corner holds the row count n and whose last row the column
 * sums s, so the covariance is (XᵀX − s·sᵀ/n) / (n − 1) with no second pass.
 * The anomaly flag: a reading new in this window more than ANOMALY_SIGMAS
 * standard deviations from the window's mean on some channel.
 */
import type { Tuple } from 'hstorm';

export const ANOMALY_SIGMAS = 6;

/** The row a reading contributes: its channels, then 1 (which counts rows and sums columns). */
export function rowOf(t: Tuple): number[] {
  return [...(t.getValueByField('readings') as number[]), 1];
}

/** M = X'ᵀ·X' in float64, row-major (d+1)×(d+1): the reference the kernels are checked against. */
export function scatterMatrix(rows: readonly number[][]): Float64Array {
  const w = rows[0]?.length ?? 0;
  const m = new Float64Array(w * w);
  for (const r of rows) for (let i = 0; i < w; i++) for (let j = 0; j < w; j++) m[i * w + j]! += r[i]! * r[j]!;
  return m;
}

export interface WindowStats {
  n: number;
  mean: number[];
  /** Row-major d×d covariance matrix. */
  cov: number[];
}

/** Mean and covariance from M (row-major, (d+1)×(d+1)). */
export function statsOf(m: ArrayLike<number>, d: number): WindowStats {
  const w = d + 1;
  const n = m[d * w + d]!;
  const s = Array.from({ length: d }, (_, j) => m[d * w + j]!);
  const mean = s.map((v) => v / n);
  const cov: number[] = [];
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) cov.push(n > 1 ? (m[i * w + j]! - (s[i]! * s[j]!) / n) / (n - 1) : 0);
  return { n, mean, cov };
}

/** Whether a reading new in the window stands out: |x − mean| > ANOMALY_SIGMAS·σ on some channel. */
export function anomalous(stats: WindowStats, fresh: readonly Tuple[]): boolean {
  const d = stats.mean.length;
  for (const t of fresh) {
    const x = t.getValueByField('readings') as number[];
    for (let c = 0; c < d; c++) {
      const sd = Math.sqrt(stats.cov[c * d + c]!);
      if (sd > 0 && Math.abs(x[c]! - stats.mean[c]!) > ANOMALY_SIGMAS * sd) return true;
    }
  }
  return false;
}

/** The id of a window's last reading: the key all three bolts agree on. */
export function windowKey(window: readonly Tuple[]): number {
  return window.at(-1)!.getIntegerByField('id');
}
