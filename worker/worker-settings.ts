/**
 * The keys a worker reads, compiled once (as nimbus-config.ts and
 * supervisor-config.ts do for their daemons) from its topology's stored
 * config and its supervisor's cluster config, with the schema's defaults
 * underneath for keys a topology submitted by an older nimbus lacks. Both
 * configs were validated where they were built, so the casts here only
 * restore the schema's types; defaults live in common/config/schema.ts alone.
 */
import { defaultConfig, secsToMs } from '../common/config/index.js';

export interface WorkerSettings {
  /** Acker tasks: `topology.acker.executors`, default one per worker. */
  ackers: number;
  /** Tuples queued towards one remote worker before senders wait (`topology.transfer.buffer.size`). */
  transferBufferSize: number;
  transferBatchSize: number;
  flushIntervalMs: number;
  /** `topology.transfer.max.frame.bytes`: the largest frame the worker's socket takes. */
  maxFrameBytes: number;
  /** `worker.heartbeat.frequency.secs`, at least 100 ms. */
  heartbeatMs: number;
  /** `topology.gpu.cpu.threads`; null: the machine's cores. */
  gpuCpuThreads: number | null;
}

export function workerSettings(topologyConfig: Readonly<Record<string, unknown>>, clusterConfig: Readonly<Record<string, unknown>>): WorkerSettings {
  const defaults = defaultConfig();
  const topo = { ...defaults, ...topologyConfig };
  const cluster = { ...defaults, ...clusterConfig };
  return {
    ackers: (topo['topology.acker.executors'] as number | null) ?? (topo['topology.workers'] as number),
    transferBufferSize: topo['topology.transfer.buffer.size'] as number,
    transferBatchSize: topo['topology.transfer.batch.size'] as number,
    flushIntervalMs: topo['topology.batch.flush.interval.millis'] as number,
    maxFrameBytes: topo['topology.transfer.max.frame.bytes'] as number,
    heartbeatMs: Math.max(100, secsToMs(cluster['worker.heartbeat.frequency.secs'] as number)),
    gpuCpuThreads: topo['topology.gpu.cpu.threads'] as number | null,
  };
}
