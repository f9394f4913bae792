/**
 * NimbusHealth (read-model.ts) from the parts that count it: the reconciler's
 * monitor, the heartbeat sampler, the liveness tracker, the watched cache and
 * the process itself. Read by `GET /api/v1/nimbus/health`, /metrics and the
 * scale benchmark (bench/scale.bench.ts).
 */
import type { WatchedNodeCache } from '../common/cluster-state/watched-node-cache.js';
import type { Histogram } from '../common/histogram.js';
import type { HeartbeatSampler } from './heartbeat-sampler.js';
import type { HeartbeatTracker } from './heartbeat-tracker.js';
import type { MemoryWatch } from './memory-watch.js';
import type { NimbusHealth, RunTimes } from './read-model.js';
import type { MonitorStats } from './reconciler.js';

export interface HealthSources {
  monitor: MonitorStats;
  monitorPeriodMs: number;
  sampler: HeartbeatSampler;
  tracker: HeartbeatTracker;
  cache: WatchedNodeCache;
  memory: MemoryWatch;
}

function runTimes(h: Histogram, lastMs: number | null): RunTimes {
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return { count: h.count, p50Ms: round(h.quantile(0.5)), maxMs: round(h.max), lastMs: lastMs === null ? null : round(lastMs) };
}

export function nimbusHealth(s: HealthSources, now = Date.now()): NimbusHealth {
  return {
    now,
    monitor: {
      ...runTimes(s.monitor.roundMs, s.monitor.lastRoundMs),
      skippedTicks: s.monitor.skippedTicks,
      periodMs: s.monitorPeriodMs,
      recentMs: s.monitor.recentMs.map((ms) => Math.round(ms * 1000) / 1000),
    },
    sampler: { ...runTimes(s.sampler.durations, s.sampler.lastMs), skippedTicks: s.sampler.counts.skipped, records: s.sampler.counts.records },
    liveness: { ...s.tracker.counts, reportingSupervisors: s.tracker.reportingSupervisors(now) },
    cache: { ...s.cache.counts },
    memory: s.memory.usage(),
  };
}
