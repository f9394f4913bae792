/**
 * nimbus — the master daemon: stores topologies and their code, places
 * executors with the scheduler (nimbus/scheduler), writes assignments, watches
 * supervisors and worker heartbeats and reschedules when they fail, and serves
 * the JSON API the CLI and supervisors use, and what operators look at:
 * Storm's UI REST API, the web UI at `/` and Prometheus `/metrics`. Nimbus
 * keeps nothing that matters beyond the cluster-state store and its blob
 * directory (its windowed statistics are memory, rebuilt from heartbeats).
 *
 * @example
 * const nimbus = new Nimbus({ state, config, log });
 * await nimbus.start();
 * const { app } = await startHttpApi({ nimbus, log, host: '0.0.0.0', port: 6627 });
 * // …
 * await app.close();
 * await nimbus.stop();
 */
export { Nimbus, type NimbusOptions, type SubmitResult } from './nimbus.js';
export { nimbusSettings, type NimbusSettings } from './nimbus-config.js';
export type { ClusterReadModel, ClusterSnapshot, HeartbeatSink, TopologyControl, TopologyHoldings, TopologySnapshot } from './read-model.js';
export { buildHttpApi, startHttpApi, API_PREFIX, type HttpApiOptions, type TopologyStatusView } from './http-api.js';
export type { HttpErrorBody } from './http-errors.js';
export type { SubmitRequest, KillRequest, RebalanceRequest } from './http-requests.js';
export { BlobStore, sha256Hex, verifyBundle } from './blob-store.js';
export { BadRequestError, BundleInvalidError, ComponentNotFoundError, TopologyExistsError, TopologyNotFoundError, TopologyStateError } from './errors.js';
export { prometheusText, LATENCY_BUCKETS_S } from './prometheus.js';
export { StatsHistory, STORM_WINDOWS, type StormWindow, type WindowStats } from './stats/topology-stats.js';
export type { ClusterSummaryView, NimbusSummaryView, SupervisorSummaryView, TopologySummaryView } from './storm-ui/cluster-views.js';
export type { ComponentPageView, TopologyMetricsView, TopologyPageView } from './storm-ui/topology-views.js';
export type { CorruptNode } from './cluster-reader.js';
export type { WorkerLiveness } from './heartbeat-tracker.js';
export { SplitHistory, DEFAULT_SPLIT_HISTORY_POINTS, type SplitPoint } from './split-history.js';
export type {
  ClusterSummary,
  ComponentStats,
  GpuSummary,
  SupervisorSummary,
  TopologyDetail,
  TopologySummary,
  TopologyTimeseries,
  WorkerDetail,
  WorkerMetrics,
} from './views.js';
