/** Small display helpers of the page. */
export function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : `${(x * 100).toFixed(0)} %`;
}

export function mb(x: number | null | undefined): string {
  if (x === null || x === undefined) return '–';
  return x >= 10_240 ? `${(x / 1024).toFixed(1)} GiB` : `${Math.round(x)} MiB`;
}

export function num(x: number | string | null | undefined, digits = 0): string {
  if (x === null || x === undefined || x === '') return '–';
  const n = typeof x === 'string' ? Number(x) : x;
  return Number.isFinite(n) ? n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(x);
}

export function ago(secs: number | null | undefined): string {
  return secs === null || secs === undefined ? '' : `${secs} s ago`;
}
