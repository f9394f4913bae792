/**
 * The metrics-v2 part of a task's TopologyContext: registerCounter/Gauge/
 * Histogram/Meter put the metric in the task's executor registry, which the
 * executor adds to every heartbeat (Executor.extraMetrics).
 */
import type { TopologyContext } from '../../topology-sdk/context.js';
import type { MetricRegistry } from '../../topology-sdk/user-metrics.js';

type UserMetricsApi = Pick<TopologyContext, 'registerCounter' | 'registerGauge' | 'registerHistogram' | 'registerMeter'>;

export function userMetricsOf(executor: () => { userMetrics: MetricRegistry } | undefined, component: string, task: number): UserMetricsApi {
  const registry = (): MetricRegistry => {
    const ex = executor();
    // An invariant: a context is only built for a task whose executor runs here.
    if (!ex) throw new Error(`user metrics: task ${task} of "${component}" does not run in this worker`);
    return ex.userMetrics;
  };
  return {
    registerCounter: (name) => registry().counter(name),
    registerGauge: (name, gauge) => registry().gauge(name, gauge),
    registerHistogram: (name) => registry().histogram(name),
    registerMeter: (name) => registry().meter(name),
  };
}
