/**
 * Records stored in the cluster state, besides assignments: the topology
 * itself (StormBase) and worker heartbeats (with the metrics they carry).
 */
import type { TopologyDef } from './topology-def.js';

export type TopologyStatus = 'active' | 'inactive' | 'killed' | 'rebalancing';

/** Where a worker finds the topology's code. */
export type TopologyCode =
  | { kind: 'path'; path: string } // local mode: the module on this machine
  | { kind: 'bundle'; sha256: string; size: number }; // cluster mode: a blob nimbus serves

export interface StormBase {
  version: 1;
  id: string;
  name: string;
  status: TopologyStatus;
  launchTime: number;
  def: TopologyDef;
  /** Merged topology config (cluster config overridden by topology config). */
  config: Record<string, unknown>;
  code: TopologyCode;
  /** When killed: how long workers get to drain before they are stopped. */
  killWaitSecs?: number;
  killedAt?: number;
}

export interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** Counters are cumulative since the executor started; rates derive from two beats. */
export interface ExecutorMetrics {
  component: string;
  task: number;
  emitted: number;
  transferred: number;
  executed: number;
  acked: number;
  failed: number;
  executeLatencyMs: LatencyStats;
  completeLatencyMs: LatencyStats | null;
  queueDepth: number;
  /** Share of the last report period spent executing (Storm's capacity). */
  capacity: number;
  /** GPU bolts: the backend that actually ran, and launch stats. */
  gpu?: GpuMetrics;
  /** Split spouts: γ, δ and latencies. */
  split?: SplitMetrics;
  /** Sparse histograms (see common/histogram.ts) so percentiles can be merged across tasks. */
  executeHist?: [number, number][];
  executeSum?: number;
  completeHist?: [number, number][] | null;
  completeSum?: number;
}

export interface GpuMetrics {
  backend: string;
  requestedBackend: string;
  fallback: boolean;
  fallbackReason: string | null;
  launches: number;
  kernelMs: LatencyStats;
  batchFill: number;
}

export interface SplitMetrics {
  gamma: number;
  delta: number | null;
  latCpuMs: number | null;
  latGpuMs: number | null;
  policy: 'latency' | 'capacity';
  sentCpu: number;
  sentGpu: number;
}

export interface WorkerHeartbeat {
  version: 1;
  topologyId: string;
  supervisorId: string;
  host: string;
  port: number;
  pid: number;
  epoch: number;
  time: number;
  uptimeSecs: number;
  rssMB: number;
  /** Frames dropped because they could not be decoded or named an unknown task. */
  droppedFrames: number;
  executors: ExecutorMetrics[];
}
