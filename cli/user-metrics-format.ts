/** A component's user metrics as text, one line per kind: the `hstorm local` summary and `hstorm describe` print the same. */
import type { ComponentUserMetrics } from '../common/user-metrics-fold.js';

export function formatUserMetrics(m: ComponentUserMetrics, indent: string): string[] {
  const lines: string[] = [];
  const list = <T>(o: Record<string, T>, f: (name: string, v: T) => string) => Object.entries(o).map(([k, v]) => f(k, v)).join(', ');
  if (Object.keys(m.counters).length) lines.push(`${indent}counters: ${list(m.counters, (k, v) => `${k} ${v}`)}`);
  if (Object.keys(m.gauges).length) {
    lines.push(`${indent}gauges: ${list(m.gauges, (k, g) => (g.min === null ? `${k} none` : g.min === g.max ? `${k} ${g.min}` : `${k} ${g.min}..${g.max} (mean ${g.mean})`))}`);
  }
  if (Object.keys(m.histograms).length) {
    lines.push(`${indent}histograms: ${list(m.histograms, (k, h) => `${k} count ${h.count} p50 ${h.p50} p99 ${h.p99} max ${h.max}`)}`);
  }
  if (Object.keys(m.meters).length) lines.push(`${indent}meters: ${list(m.meters, (k, v) => `${k} count ${v.count} rate ${v.meanRate}/s (1 min ${v.m1Rate}/s)`)}`);
  return lines;
}
