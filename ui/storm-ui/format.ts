/**
 * Storm UI's ways of writing things: uptimes as "1d 2h 3m 4s", windows as
 * "10m 0s" / "All time", latencies and capacity as strings with three
 * decimals, statuses in capitals, executor ids as "[t-t]".
 */
import type { TopologyStatus } from '../../common/storm-base.js';
import { BadRequestError } from '../../nimbus/errors.js';
import { STORM_WINDOWS, type StormWindow } from '../stats/topology-stats.js';

/** Storm's prettyUptimeSec: "45s", "3m 5s", "2h 0m 7s", "1d 0h 0m 0s". */
export function prettyUptime(totalSecs: number): string {
  let s = Math.max(0, Math.floor(totalSecs));
  const d = Math.floor(s / 86_400);
  s -= d * 86_400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${d}d ${h}h ${m}m ${s}s`;
  if (h > 0) return `${h}h ${m}m ${s}s`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

export function windowPretty(w: StormWindow): string {
  return w === ':all-time' ? 'All time' : prettyUptime(Number(w));
}

/** The `window` query parameter: Storm's four windows; absent means all time. */
export function parseWindow(raw: unknown): StormWindow {
  if (raw === undefined || raw === '') return ':all-time';
  const w = STORM_WINDOWS.find((x) => x === raw || (x === ':all-time' && raw === 'all-time'));
  if (!w) throw new BadRequestError(`window must be one of ${STORM_WINDOWS.join(', ')} (seconds, or :all-time), got "${String(raw)}"`, 'window');
  return w;
}

/** `sys=1` includes system components (the ackers), as in Storm. */
export function parseSys(raw: unknown): boolean {
  return raw === '1' || raw === 'true';
}

/** Storm sends latencies and capacity as strings with three decimals. */
export function fixed3(x: number | null | undefined): string | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : x.toFixed(3);
}

export function stormStatus(s: TopologyStatus): string {
  return s.toUpperCase();
}

export function executorId(task: number): string {
  return `[${task}-${task}]`;
}
