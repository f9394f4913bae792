/**
 * What nimbus offers those who show the cluster — its own JSON API for the
 * CLI (http-api.ts) and the UI room (ui/: Storm UI REST API, web UI,
 * Prometheus) — as interfaces, so that they depend on these and not on the
 * daemon (Storm keeps storm-webapp apart from storm-server the same way):
 *
 * - `ClusterReadModel`: the views, built from the store and nimbus's memory
 *   (nimbus-read-model.ts implements it);
 * - `HeartbeatSink`: a reader that keeps what worker heartbeats say over time
 *   (the UI's windowed statistics), fed on nimbus's monitor tick;
 * - `TopologyControl`: the operator's verbs that Storm UI's POST routes call.
 *
 * Types only: nothing here runs.
 */
import type { Assignment } from '../common/assignment.js';
import type { Config } from '../common/config/index.js';
import type { ParsedWorkerHeartbeat } from '../common/record-schemas.js';
import type { NodeStats, ResourceVector, SupervisorInfo } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import type { CorruptNode } from './cluster-reader.js';
import type { NimbusMemory } from './memory-watch.js';
import type { SchedulerStrategy } from './scheduler/types.js';
import type { SplitPoint } from './split-history.js';
import type { RebalanceOptions } from './topology-admin.js';
import type { ClusterSummary, QueueListing, QueueView, SupervisorSummary, TopologyDetail, TopologySummary, TopologyTimeseries } from './views.js';

export type { RebalanceOptions };

export interface ClusterReadModel {
  /** When this nimbus started (epoch ms): what it has observed begins there. */
  readonly startedAt: number;
  /** The validated cluster config nimbus runs with. */
  clusterConfig(): Config;
  clusterSummary(): Promise<ClusterSummary>;
  supervisors(): Promise<SupervisorSummary[]>;
  /** Oldest first. */
  topologies(): Promise<TopologySummary[]>;
  /** By name or id; TopologyNotFoundError when neither matches. */
  topologyDetail(nameOrId: string): Promise<TopologyDetail>;
  /** The HDRF queue: waiting topologies in the order HDRF considers them (the reservation first). */
  queue(): Promise<QueueListing>;
  /** The split spouts' γ, δ and latencies over time (the last points nimbus sampled), oldest first. */
  timeseries(nameOrId: string, since?: number): Promise<TopologyTimeseries>;
  /** One look at the whole cluster (the Storm UI API's cluster routes and /metrics). */
  clusterSnapshot(): Promise<ClusterSnapshot>;
  /** One look at one topology, by name or id (the Storm UI API's topology routes and /metrics). */
  topologySnapshot(nameOrId: string): Promise<TopologySnapshot>;
  /** Times nimbus's stuck ZooKeeper client was replaced (common/cluster-state/zookeeper-watchdog.ts); null on a store without one. */
  storeClientReplacements(): number | null;
  /** Feeds `sink` with every worker metrics record that changed, on each monitor tick; the function returned stops that. */
  onHeartbeats(sink: HeartbeatSink): () => void;
  /** How nimbus keeps up with the cluster: its rounds, samples, liveness reports, cache and memory. */
  nimbusHealth(): NimbusHealth;
}

/** Durations of a kind of run (ms): median and largest since nimbus started, and the latest. */
export interface RunTimes {
  count: number;
  p50Ms: number;
  maxMs: number;
  lastMs: number | null;
}

/** What `GET /api/v1/nimbus/health` and /metrics show of nimbus itself (docs/operations.md). */
export interface NimbusHealth {
  now: number;
  /** The monitor: rounds run, ticks skipped because the previous round had not ended (never queued), how long rounds took. */
  monitor: RunTimes & { skippedTicks: number; periodMs: number; /** The latest rounds' durations (ms), oldest first. */ recentMs: number[] };
  /** The metrics-record sampler: samples, skipped ticks, records that changed and were parsed. */
  sampler: RunTimes & { skippedTicks: number; records: number };
  /** Supervisors' liveness reports: taken, worker beats in them, refused as malformed, supervisors that reported within the task timeout. */
  liveness: { reports: number; beats: number; refused: number; reportingSupervisors: number };
  /** The watched cache under the reconcile loop: answers from memory, store reads, entries dropped by watches. */
  cache: { hits: number; reads: number; invalidations: number };
  /** Nimbus's process: process.memoryUsage() and the heap after the latest major collection (nimbus/memory-watch.ts). */
  memory: NimbusMemory;
}

/** What nimbus's bookkeeping says of one topology beside its records: resources, HDRF share and queue, crash loops. */
export interface TopologyHoldings {
  /** What its workers hold. */
  holds: ResourceVector;
  /** Its whole request: every executor's ask (ackers included), whatever is placed now. */
  asks: ResourceVector;
  dominantShare: number;
  /** Set while it waits in the HDRF queue. */
  queue: QueueView | null;
  /** Assigned workers that keep dying soon after they start (the supervisors' reports). */
  crashLoopingWorkers: number;
}

export interface ClusterSnapshot {
  now: number;
  version: string;
  nimbus: { host: string | null; port: number | null; startedAt: number };
  scheduler: SchedulerStrategy;
  /** HDRF between topologies, and its OT; 'none': submission order. */
  fairness: { mode: 'hdrf' | 'none'; reservationTimeoutSecs: number | null };
  supervisors: ReadonlyMap<string, SupervisorInfo>;
  /** nimbus's own supervisor rows (slot and GPU slot use from the assignments). */
  rows: readonly SupervisorSummary[];
  assignments: ReadonlyMap<string, Assignment>;
  storms: ReadonlyMap<string, StormBase>;
  /** Cores, memory and GPU memory the supervisors offer, and what all workers hold. */
  resources: { total: ResourceVector; held: ResourceVector };
  /** By topology id, for every topology in `storms`. */
  holdings: ReadonlyMap<string, TopologyHoldings>;
  corruptZnodes: CorruptNode[];
  corruptReads: number;
}

export interface TopologySnapshot {
  storm: StormBase;
  assignment: Assignment | null;
  beats: ReadonlyMap<string, ParsedWorkerHeartbeat>;
  /** nimbus's hstorm view of the topology (liveness, GPU bindings, current rollups). */
  detail: TopologyDetail;
  holdings: TopologyHoldings;
  splitPoints: SplitPoint[];
  /** Node collector rounds by supervisor id (worker CPU). */
  nodes: ReadonlyMap<string, NodeStats | undefined>;
  now: number;
}

/** Keeps what heartbeats say over time; `record` gets one topology's current beats per sample. */
export interface HeartbeatSink {
  record(topologyId: string, assignment: Assignment | null, beats: readonly ParsedWorkerHeartbeat[], now: number): void;
  /** Drops what it keeps of topologies not in `live` (killed and removed). */
  retain(live: ReadonlySet<string>): void;
}

/** The operator's verbs on a running topology (by name or id), as nimbus carries them out. */
export interface TopologyControl {
  kill(nameOrId: string, waitSecs?: number): Promise<StormBase>;
  activate(nameOrId: string): Promise<StormBase>;
  deactivate(nameOrId: string): Promise<StormBase>;
  rebalance(nameOrId: string, opts?: RebalanceOptions): Promise<StormBase>;
}
