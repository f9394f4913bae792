/**
 * Time series from `runLocal`'s ~1 s progress samples: the summaries are
 * cumulative, so each interval's throughput is the difference of acked
 * counts over the difference of times, and its mean complete latency the
 * difference of latency sums (mean × count) over the difference of counts —
 * per interval, not smeared over the whole run as the final percentiles are.
 */
import type { RunSummary } from '../../cli/run-summary.js';
import type { AppliedGamma, SplitMetrics } from '../../common/storm-base.js';

export interface Sample {
  t: number;
  acked: number;
  failed: number;
  latCount: number;
  latSum: number;
  /** The split controller's γ and δ at this sample, when the topology has a split spout. */
  gamma: number | null;
  delta: number | null;
}

export interface Interval {
  /** End of the interval, seconds since submit. */
  t: number;
  throughput: number;
  /** Mean complete latency of the tuples acked in the interval; null when none were. */
  latencyMs: number | null;
  gamma: number | null;
  delta: number | null;
}

function controllerOf(s: RunSummary): SplitMetrics | null {
  for (const c of Object.values(s.components)) {
    const ctl = c.split?.find((x) => x?.controller);
    if (ctl) return ctl;
  }
  return null;
}

/** Collects samples and every γ the controller applied (the heartbeat keeps only the last 32). */
export class SeriesRecorder {
  readonly samples: Sample[] = [];
  private readonly applied = new Map<number, AppliedGamma>();

  readonly onProgress = (s: RunSummary, t: number): void => {
    const ctl = controllerOf(s);
    for (const a of ctl?.applied ?? []) this.applied.set(a.seq, a);
    this.samples.push({
      t,
      acked: s.acked,
      failed: s.failed,
      latCount: s.completeLatencyMs.count,
      latSum: s.completeLatencyMs.mean * s.completeLatencyMs.count,
      gamma: ctl?.gamma ?? null,
      delta: ctl?.delta ?? null,
    });
  };

  /** Adds the final summary's history (windows applied after the last sample). */
  finish(s: RunSummary): void {
    for (const a of controllerOf(s)?.applied ?? []) this.applied.set(a.seq, a);
  }

  /** γ per controller window, in order. */
  gammas(): AppliedGamma[] {
    return [...this.applied.values()].sort((a, b) => a.seq - b.seq);
  }

  intervals(): Interval[] {
    const out: Interval[] = [];
    // samples can arrive out of order (each is an async read); order by time
    const xs = [...this.samples].sort((a, b) => a.t - b.t);
    for (let i = 1; i < xs.length; i++) {
      const a = xs[i - 1]!;
      const b = xs[i]!;
      const dt = b.t - a.t;
      if (dt <= 0) continue;
      const dc = b.latCount - a.latCount;
      out.push({
        t: round(b.t, 1),
        throughput: round(Math.max(0, b.acked - a.acked) / dt, 1),
        latencyMs: dc > 0 ? round((b.latSum - a.latSum) / dc, 2) : null,
        gamma: b.gamma,
        delta: b.delta,
      });
    }
    return out;
  }

  /** Mean throughput and latency over the intervals ending after `fromSec` (the steady part of the run). */
  steady(fromSec: number): { throughput: number; latencyMs: number | null } {
    const xs = [...this.samples].sort((a, b) => a.t - b.t);
    const first = xs.find((s) => s.t >= fromSec);
    const last = xs[xs.length - 1];
    if (!first || !last || last.t <= first.t) return { throughput: 0, latencyMs: null };
    const dc = last.latCount - first.latCount;
    return {
      throughput: round((last.acked - first.acked) / (last.t - first.t), 1),
      latencyMs: dc > 0 ? round((last.latSum - first.latSum) / dc, 2) : null,
    };
  }
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Writes rows as CSV beside a report (writeReport's CSV holds the summary rows; this holds the time series). */
export { writeCsv } from './csv.js';
