/**
 * nimbus — the master daemon: stores topologies and their code, places
 * executors with the scheduler (nimbus/scheduler), writes assignments, watches
 * supervisors, judges worker liveness from the supervisors' messages and
 * reschedules when they fail (reconciler.ts, heartbeat-tracker.ts), reads the
 * workers' metrics records as they change (heartbeat-sampler.ts), and serves
 * the JSON API the CLI and supervisors use. What
 * it knows is read through a read model behind an interface (read-model.ts:
 * ClusterReadModel), which the JSON API, the UI room (ui/) and tests read;
 * nimbus imports nothing of the UI — `startHttpApi` takes the UI's routes as
 * a plugin from its caller. Nimbus keeps nothing that matters beyond the
 * cluster-state store and its blob directory (its time series are memory,
 * rebuilt from metrics records).
 *
 * @example
 * const nimbus = new Nimbus({ state, config, log });
 * await nimbus.start();
 * const { app } = await startHttpApi({ nimbus, log, host: '0.0.0.0', port: 6627 });
 * const detail = await nimbus.readModel.topologyDetail('word-count');
 * await nimbus.kill('word-count', 0);
 * // …
 * await app.close();
 * await nimbus.stop();
 */
export { Nimbus, type NimbusOptions, type SubmitOptions, type SubmitResult } from './nimbus.js';
export { nimbusSettings, type NimbusSettings } from './nimbus-config.js';
export type { ClusterReadModel, ClusterSnapshot, HeartbeatSink, NimbusHealth, RunTimes, TopologyControl, TopologyHoldings, TopologySnapshot } from './read-model.js';
export { buildHttpApi, startHttpApi, API_PREFIX, type HttpApiOptions, type HttpApiPlugin, type TopologyStatusView } from './http-api.js';
export type { HttpErrorBody } from './http-errors.js';
export type { SubmitRequest, KillRequest, RebalanceRequest } from './http-requests.js';
export { BlobStore, sha256Hex, verifyBundle } from './blob-store.js';
export { BadRequestError, BundleInvalidError, ComponentNotFoundError, TopologyExistsError, TopologyNotFoundError, TopologyStateError } from './errors.js';
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
