/**
 * `GET /metrics`: the cluster in Prometheus's text format (prom-client), for
 * a Prometheus server and Grafana. Every scrape reads the store and nimbus's
 * windowed statistics once and writes one fresh registry, so the figures of
 * one scrape belong together. Labels: `supervisor`, `host`, `gpu`, `model`
 * for nodes; `topology` (name), `topology_id`, `component`, `kind` for
 * topologies, so dashboards can group by any of them.
 *
 * Component counters are what nimbus has counted since it started (retired
 * worker incarnations included), so they only grow while nimbus runs, as
 * Prometheus counters must; a restarted nimbus starts them again (Prometheus
 * sees a counter reset). The complete-latency histogram merges the spouts'
 * own log-bucketed histograms into Prometheus buckets (upper edges, within 4 %).
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import { bucketUpperMs, type Histogram } from '../common/histogram.js';
import type { Logger } from '../common/logger.js';
import { ACKER_COMPONENT } from '../common/topology-def.js';
import type { ClusterReadModel } from '../nimbus/read-model.js';
import type { StatsHistory } from './stats/topology-stats.js';
import { clusterSummary, supervisorRecord } from './storm-ui/cluster-views.js';
import { foldGpu, taskBeats } from './storm-ui/executor-beats.js';
import { foldUserMetrics } from '../common/user-metrics-fold.js';
import type { TopologyInput } from './storm-ui/topology-views.js';

/** Complete latency buckets, seconds. */
export const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Labels = Record<string, string | number>;

interface SnapshotValue {
  metricName?: string;
  labels: Labels;
  value: number;
}

/**
 * A histogram or summary whose buckets were computed elsewhere (merged from
 * heartbeats): prom-client formats it, but its own Histogram can only observe
 * single values, so this is the plain metric object its Registry reads.
 */
function snapshotMetric(registry: Registry, name: string, help: string, type: 'histogram' | 'summary', values: SnapshotValue[]): void {
  const metric = { name, help, type, aggregator: 'sum', get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values }) };
  registry.registerMetric(metric as unknown as Metric);
}

function histogramValues(name: string, labels: Labels, h: Histogram): SnapshotValue[] {
  const counts = new Array<number>(LATENCY_BUCKETS_S.length).fill(0);
  for (const [b, c] of h.toSparse()) {
    const upper = bucketUpperMs(b) / 1000;
    const i = LATENCY_BUCKETS_S.findIndex((le) => upper <= le);
    if (i >= 0) counts[i]! += c;
  }
  const out: SnapshotValue[] = [];
  let cumulative = 0;
  LATENCY_BUCKETS_S.forEach((le, i) => {
    cumulative += counts[i]!;
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
  });
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: h.count });
  out.push({ metricName: `${name}_sum`, labels, value: h.sum / 1000 });
  out.push({ metricName: `${name}_count`, labels, value: h.count });
  return out;
}

/** Gauges and counters of one scrape, made on first use. */
class Scrape {
  readonly registry = new Registry();
  private readonly gauges = new Map<string, Gauge>();
  private readonly counters = new Map<string, Counter>();

  gauge(name: string, help: string, labels: Labels, value: number | null | undefined): void {
    if (value === null || value === undefined || !Number.isFinite(value)) return;
    let g = this.gauges.get(name);
    if (!g) this.gauges.set(name, (g = new Gauge({ name, help, labelNames: Object.keys(labels), registers: [this.registry] })));
    g.set(labels, value);
  }

  counter(name: string, help: string, labels: Labels, value: number): void {
    let c = this.counters.get(name);
    if (!c) this.counters.set(name, (c = new Counter({ name, help, labelNames: Object.keys(labels), registers: [this.registry] })));
    c.inc(labels, Math.max(0, value));
  }
}

/** What a scrape reads: the read model, and Storm's windows for the component counters. */
export interface PrometheusSources {
  readModel: ClusterReadModel;
  stats: StatsHistory;
}

export async function prometheusText({ readModel, stats }: PrometheusSources): Promise<{ text: string; contentType: string }> {
  const s = new Scrape();
  const cluster = await readModel.clusterSnapshot();
  const sum = clusterSummary(cluster);
  s.gauge('hstorm_cluster_supervisors', 'Supervisors registered', {}, sum.supervisors);
  s.gauge('hstorm_cluster_topologies', 'Topologies on the cluster', {}, sum.topologies);
  s.gauge('hstorm_cluster_slots', 'Worker slots (ports) of all supervisors', {}, sum.slotsTotal);
  s.gauge('hstorm_cluster_slots_used', 'Worker slots in use', {}, sum.slotsUsed);
  s.gauge('hstorm_cluster_gpu_slots', 'GPU slots of all GPUs', {}, sum.hstorm.gpuSlotsTotal);
  s.gauge('hstorm_cluster_gpu_slots_used', 'GPU slots in use', {}, sum.hstorm.gpuSlotsUsed);
  s.gauge('hstorm_cluster_executors', 'Executors of all topologies', {}, sum.executorsTotal);
  s.gauge('hstorm_nimbus_uptime_seconds', 'Seconds since nimbus started', {}, sum.hstorm.nimbus.uptimeSecs);
  s.counter('hstorm_nimbus_corrupt_reads_total', 'Znodes skipped because they did not parse', {}, sum.hstorm.corruptReads);
  const h = readModel.nimbusHealth();
  s.counter('hstorm_nimbus_monitor_rounds_total', 'Monitor rounds nimbus ran', {}, h.monitor.count);
  s.counter('hstorm_nimbus_monitor_skipped_ticks_total', 'Monitor ticks skipped because the previous round had not ended (rounds are never queued)', {}, h.monitor.skippedTicks);
  s.gauge('hstorm_nimbus_monitor_round_p50_seconds', 'Median duration of a monitor round since nimbus started', {}, h.monitor.p50Ms / 1000);
  s.gauge('hstorm_nimbus_monitor_round_max_seconds', 'Longest monitor round since nimbus started', {}, h.monitor.maxMs / 1000);
  s.gauge('hstorm_nimbus_monitor_round_last_seconds', 'Duration of the latest monitor round', {}, h.monitor.lastMs === null ? null : h.monitor.lastMs / 1000);
  s.counter('hstorm_nimbus_sampler_skipped_ticks_total', 'Metrics-record samples skipped because the previous one had not ended', {}, h.sampler.skippedTicks);
  s.counter('hstorm_nimbus_metrics_records_total', 'Worker metrics records that changed and were read', {}, h.sampler.records);
  s.counter('hstorm_nimbus_liveness_reports_total', "Supervisors' worker-liveness reports taken", {}, h.liveness.reports);
  s.counter('hstorm_nimbus_liveness_reports_refused_total', 'Worker-liveness reports refused as malformed', {}, h.liveness.refused);
  s.gauge('hstorm_nimbus_reporting_supervisors', 'Supervisors whose liveness report arrived within nimbus.task.timeout.secs', {}, h.liveness.reportingSupervisors);
  s.gauge('hstorm_nimbus_rss_bytes', "Resident memory of nimbus's process", {}, h.memory.rssBytes);
  s.gauge('hstorm_nimbus_heap_used_bytes', "V8 heap nimbus's process uses", {}, h.memory.heapUsedBytes);
  s.gauge('hstorm_nimbus_heap_total_bytes', "V8 heap nimbus's process has reserved", {}, h.memory.heapTotalBytes);
  s.gauge('hstorm_nimbus_external_bytes', "Memory outside the V8 heap held by nimbus's JS objects (buffers included)", {}, h.memory.externalBytes);
  s.gauge('hstorm_nimbus_heap_after_major_gc_bytes', "V8 heap nimbus's process used just after its latest major collection (what a leak raises)", {}, h.memory.heapAfterMajorGcBytes);
  const replacements = readModel.storeClientReplacements();
  if (replacements !== null) {
    s.counter('hstorm_nimbus_zookeeper_client_replacements_total', 'Times a stuck ZooKeeper client of nimbus was replaced by a fresh one', {}, replacements);
  }

  for (const row of cluster.rows) {
    const r = supervisorRecord(row, cluster.supervisors.get(row.id), cluster.version);
    const l = { supervisor: r.id, host: r.host };
    s.gauge('hstorm_supervisor_slots', 'Worker slots (ports) of the supervisor', l, r.slotsTotal);
    s.gauge('hstorm_supervisor_slots_used', 'Worker slots in use on the supervisor', l, r.slotsUsed);
    s.gauge('hstorm_supervisor_uptime_seconds', 'Seconds since the supervisor started', l, r.uptimeSeconds);
    const node = r.hstorm.node;
    if (node) {
      s.gauge('hstorm_node_cpu_utilisation', 'Busy share of all cores of the node, 0..1 (node collector)', l, node.cpu.utilisation);
      s.gauge('hstorm_node_cpu_cores', 'Cores of the node', l, node.cpu.cores);
      s.gauge('hstorm_node_load1', 'One-minute load average of the node', l, node.cpu.load1);
      s.gauge('hstorm_node_memory_bytes', 'Memory of the node', l, node.memory.totalMB * 2 ** 20);
      s.gauge('hstorm_node_memory_used_bytes', 'Memory in use on the node (total − available)', l, node.memory.usedMB * 2 ** 20);
      s.gauge('hstorm_node_collect_seconds', 'Wall time of the node collector round', l, node.collectMs / 1000);
      for (const w of node.workers) {
        const wl = { ...l, port: w.port, topology_id: w.topologyId };
        s.gauge('hstorm_worker_rss_bytes', 'Resident memory of a worker process', wl, w.rssMB === null ? null : w.rssMB * 2 ** 20);
        s.gauge('hstorm_worker_cpu_cores', 'CPU of a worker process (1 = one core busy)', wl, w.cpu);
      }
    }
    for (const g of r.hstorm.gpus) {
      const gl = { ...l, gpu: g.id, model: g.name, source: g.source };
      s.gauge('hstorm_gpu_slots', 'Slots (MPS clients) of a GPU', gl, g.slots);
      s.gauge('hstorm_gpu_slots_used', 'Slots of a GPU held by GPU workers', gl, g.usedSlots);
      s.gauge('hstorm_gpu_utilisation', 'Busy share of the GPU, 0..1 (nvidia-smi; absent for WebGPU adapters and declared GPUs)', gl, g.utilisation);
      s.gauge('hstorm_gpu_memory_used_bytes', 'GPU memory in use (nvidia-smi)', gl, g.memoryUsedMB === null ? null : g.memoryUsedMB * 2 ** 20);
      s.gauge('hstorm_gpu_memory_bytes', 'GPU memory', gl, g.memoryTotalMB === null ? null : g.memoryTotalMB * 2 ** 20);
    }
  }

  const latency: SnapshotValue[] = [];
  const kernel: SnapshotValue[] = [];
  for (const storm of cluster.storms.values()) {
    let t: TopologyInput;
    try {
      t = { ...(await readModel.topologySnapshot(storm.id)), stats, window: ':all-time', sys: false };
    } catch {
      continue; // killed and removed between the two reads
    }
    const tl = { topology: storm.name, topology_id: storm.id };
    s.gauge('hstorm_topology_status', 'Status of the topology (1 for the current one)', { ...tl, status: storm.status }, 1);
    s.gauge('hstorm_topology_uptime_seconds', 'Seconds since the topology was submitted', tl, t.detail.uptimeSecs);
    s.gauge('hstorm_topology_workers', 'Workers assigned', tl, t.detail.workers.length);
    s.gauge('hstorm_topology_gpu_workers', 'Workers assigned to GPU slots', tl, t.detail.workers.filter((w) => w.gpu).length);
    s.gauge('hstorm_topology_unassigned_executors', 'Executors the scheduler could not place', tl, t.detail.unassigned.length);
    componentSeries(s, t, tl, latency, kernel);
  }
  snapshotMetric(s.registry, 'hstorm_component_complete_latency_seconds', 'Complete latency of spout tuples (ack tree done), since nimbus started', 'histogram', latency);
  snapshotMetric(s.registry, 'hstorm_gpu_kernel_seconds', 'GPU kernel time per launch, merged over the tasks', 'summary', kernel);
  return { text: await s.registry.metrics(), contentType: s.registry.contentType };
}

function componentSeries(s: Scrape, t: TopologyInput, tl: Labels, latency: SnapshotValue[], kernel: SnapshotValue[]): void {
  const byTask = taskBeats(t.assignment, t.beats);
  for (const [id, c] of Object.entries(t.detail.components)) {
    const tasks: number[] = [];
    for (const w of t.assignment?.workers ?? []) for (const e of w.executors) if (e.component === id) tasks.push(e.task);
    const l = { ...tl, component: id, kind: c.kind };
    const all = t.stats.tasks(t.storm.id, tasks, ':all-time', t.now);
    s.counter('hstorm_component_emitted_total', 'Tuples emitted', l, all.emitted);
    s.counter('hstorm_component_transferred_total', 'Tuples sent to other tasks', l, all.transferred);
    s.counter('hstorm_component_executed_total', 'Tuples executed (bolts)', l, all.executed);
    s.counter('hstorm_component_acked_total', 'Tuples acked', l, all.acked);
    s.counter('hstorm_component_failed_total', 'Tuples failed', l, all.failed);
    s.gauge('hstorm_component_executors', 'Executors of the component', l, c.executors);
    s.gauge('hstorm_component_capacity', 'Busy share of the last heartbeat period, busiest executor (Storm capacity)', l, c.capacity);
    s.gauge('hstorm_component_execute_latency_seconds', 'Mean execute latency (sampled executes)', l, c.executeLatencyMs === null ? null : c.executeLatencyMs / 1000);
    if (c.kind === 'spout' && id !== ACKER_COMPONENT) {
      const h = t.stats.completeHistogram(t.storm.id, tasks);
      if (h.count > 0) latency.push(...histogramValues('hstorm_component_complete_latency_seconds', l, h));
    }
    const beats = tasks.flatMap((k) => byTask.get(k) ?? []);
    const gpu = foldGpu(beats.map((b) => b.metrics));
    if (gpu) {
      const gl = { ...l, backend: gpu.backends.join(',') || 'none' };
      s.counter('hstorm_gpu_launches_total', 'Kernel launches of a GPU component', gl, gpu.launches);
      s.gauge('hstorm_gpu_tuples_per_second', 'Tuples through the kernels per second', gl, gpu.tuplesPerSec);
      s.gauge('hstorm_gpu_fallback', '1 when a GPU component runs its kernel on a CPU backend', gl, gpu.fallback ? 1 : 0);
      // From the merged histograms (metrics-rollup.ts): exact across tasks.
      kernel.push({ labels: { ...gl, quantile: 0.5 }, value: gpu.kernelMs.p50 / 1000 }, { labels: { ...gl, quantile: 0.99 }, value: gpu.kernelMs.p99 / 1000 });
      kernel.push(
        { metricName: 'hstorm_gpu_kernel_seconds_sum', labels: gl, value: (gpu.kernelMs.mean * gpu.kernelMs.count) / 1000 },
        { metricName: 'hstorm_gpu_kernel_seconds_count', labels: gl, value: gpu.kernelMs.count },
      );
      s.gauge('hstorm_gpu_software_adapter', '1 when the WebGPU adapter that ran is a software one (a CPU, not a GPU)', gl, gpu.onGpu && !gpu.onHardwareGpu ? 1 : 0);
      s.counter('hstorm_gpu_devices_lost_total', 'WebGPU devices lost (worst worker)', gl, gpu.devicesLost);
    }
    const split = c.split as { gamma?: unknown; delta?: unknown; latCpuMs?: unknown; latGpuMs?: unknown } | null;
    if (split) {
      s.gauge('hstorm_split_gamma', 'γ: share of the split spout tuples sent to the GPU stream', l, num(split.gamma));
      s.gauge('hstorm_split_delta', 'δ = lat_cpu / (lat_cpu + lat_gpu) of the last window', l, num(split.delta));
      s.gauge('hstorm_split_latency_seconds', 'Mean complete latency of the split streams in the last window', { ...l, side: 'cpu' }, ms(split.latCpuMs));
      s.gauge('hstorm_split_latency_seconds', 'Mean complete latency of the split streams in the last window', { ...l, side: 'gpu' }, ms(split.latGpuMs));
    }
    const user = foldUserMetrics(beats.map((b) => ({ task: b.task, user: b.metrics.user })));
    if (user) {
      for (const [name, v] of Object.entries(user.counters)) s.gauge('hstorm_user_counter', 'User counter (metrics v2), summed over the tasks', { ...l, name }, v);
      for (const [name, g] of Object.entries(user.gauges)) {
        for (const [task, v] of Object.entries(g.byTask)) s.gauge('hstorm_user_gauge', 'User gauge (metrics v2), per task', { ...l, name, task }, v);
      }
      for (const [name, h] of Object.entries(user.histograms)) {
        s.gauge('hstorm_user_histogram', 'User histogram (metrics v2), merged over the tasks', { ...l, name, stat: 'p50' }, h.p50);
        s.gauge('hstorm_user_histogram', 'User histogram (metrics v2), merged over the tasks', { ...l, name, stat: 'p99' }, h.p99);
        s.gauge('hstorm_user_histogram', 'User histogram (metrics v2), merged over the tasks', { ...l, name, stat: 'mean' }, h.mean);
        s.gauge('hstorm_user_histogram_count', 'Values recorded in a user histogram', { ...l, name }, h.count);
      }
      for (const [name, m] of Object.entries(user.meters)) {
        s.gauge('hstorm_user_meter_count', 'Events marked on a user meter, summed over the tasks', { ...l, name }, m.count);
        s.gauge('hstorm_user_meter_rate_1m', 'One-minute rate of a user meter (events/s), summed over the tasks', { ...l, name }, m.m1Rate);
      }
    }
  }
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function ms(v: unknown): number | null {
  const n = num(v);
  return n === null ? null : n / 1000;
}

export function registerPrometheus(app: FastifyInstance, sources: PrometheusSources, log: Logger): void {
  app.get('/metrics', async (_req, reply) => {
    const started = performance.now();
    const { text, contentType } = await prometheusText(sources);
    log.debug({ ms: Math.round(performance.now() - started), bytes: text.length }, 'metrics scraped');
    return reply.header('content-type', contentType).send(text);
  });
}
