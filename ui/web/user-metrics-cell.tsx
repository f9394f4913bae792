/** A component's user metrics (metrics v2) in one table cell. */
import type { ComponentUserMetrics } from '../../common/user-metrics-fold.js';
import { num } from './format.js';

export function UserMetricsCell({ m }: { m: ComponentUserMetrics | null }) {
  if (!m) return <span>–</span>;
  const lines: string[] = [];
  for (const [k, v] of Object.entries(m.counters)) lines.push(`${k}: ${num(v)}`);
  for (const [k, g] of Object.entries(m.gauges)) lines.push(`${k}: ${num(g.mean, 2)}${g.min !== g.max ? ` (${num(g.min, 2)}…${num(g.max, 2)})` : ''}`);
  for (const [k, h] of Object.entries(m.histograms)) lines.push(`${k}: p50 ${num(h.p50, 2)} p99 ${num(h.p99, 2)} (${num(h.count)})`);
  for (const [k, r] of Object.entries(m.meters)) lines.push(`${k}: ${num(r.count)} (${num(r.m1Rate, 1)}/s)`);
  return (
    <div class="note" data-testid="user-metrics">
      {lines.map((l) => (
        <div key={l}>{l}</div>
      ))}
    </div>
  );
}
