/**
 * A component's user metrics (metrics v2: counters, gauges, histograms,
 * meters) folded over its tasks' heartbeats: counters and meters summed,
 * histograms merged by bucket, gauges per task with min, max and mean. The
 * Storm UI API, Prometheus, `hstorm describe` and the `hstorm local` summary
 * all show this one fold.
 */
import { Histogram } from './histogram.js';
import type { LatencyStats, UserMetricsSnapshot } from './storm-base.js';

export interface GaugeFold {
  min: number | null;
  max: number | null;
  mean: number | null;
  /** task → value at its last heartbeat. */
  byTask: Record<string, number | null>;
}

export interface ComponentUserMetrics {
  /** Summed over the component's tasks. */
  counters: Record<string, number>;
  gauges: Record<string, GaugeFold>;
  /** Merged over the tasks (percentiles from the merged buckets). */
  histograms: Record<string, LatencyStats>;
  /** Counts and rates summed over the tasks. */
  meters: Record<string, { count: number; meanRate: number; m1Rate: number }>;
}

/** Folds the tasks' user metrics per name; null when no task registered any. */
export function foldUserMetrics(list: Iterable<{ task: number; user?: UserMetricsSnapshot | undefined }>): ComponentUserMetrics | null {
  const out: ComponentUserMetrics = { counters: {}, gauges: {}, histograms: {}, meters: {} };
  const hists = new Map<string, Histogram>();
  let any = false;
  for (const { task, user } of list) {
    if (!user) continue;
    any = true;
    for (const [k, v] of Object.entries(user.counters)) out.counters[k] = (out.counters[k] ?? 0) + v;
    for (const [k, v] of Object.entries(user.gauges)) (out.gauges[k] ??= { min: null, max: null, mean: null, byTask: {} }).byTask[task] = v;
    for (const [k, v] of Object.entries(user.histograms)) {
      let h = hists.get(k);
      if (!h) hists.set(k, (h = new Histogram()));
      h.mergeSparse(v.hist, v.sum, v.max);
    }
    for (const [k, v] of Object.entries(user.meters)) {
      const m = (out.meters[k] ??= { count: 0, meanRate: 0, m1Rate: 0 });
      m.count += v.count;
      m.meanRate = round(m.meanRate + v.meanRate);
      m.m1Rate = round(m.m1Rate + v.m1Rate);
    }
  }
  if (!any) return null;
  for (const g of Object.values(out.gauges)) {
    const vals = Object.values(g.byTask).filter((v): v is number => v !== null);
    if (vals.length === 0) continue;
    g.min = Math.min(...vals);
    g.max = Math.max(...vals);
    g.mean = round(vals.reduce((a, b) => a + b, 0) / vals.length);
  }
  for (const [k, h] of hists) out.histograms[k] = h.stats();
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
