/**
 * zod schemas for the JSON records daemons read from the cluster state
 * (SupervisorInfo, StormBase, Assignment, WorkerHeartbeat, the nimbus node).
 * Anything read from a znode may have been written by another version, by
 * hand or half-way: it goes through one of these (with readJson/decodeJson
 * from cluster-state/json-node.ts) before anyone trusts it. Objects are
 * "loose" so a newer writer's extra fields do not make a record corrupt.
 */
import { z } from 'zod';
import type { Assignment } from './assignment.js';
import type { SupervisorInfo } from './resources.js';
import { LOG_LEVELS, type StormBase } from './storm-base.js';
import type { TopologyDef } from './topology-def.js';

const port = z.number().int().min(1).max(65535);
const count = z.number().min(0);

export const gpuInfoSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  smCount: count,
  coresPerSm: count,
  clockMHz: count,
  memoryMB: count,
  computeCapability: z.string(),
  slots: z.number().int().min(0),
  source: z.enum(['nvidia-smi', 'webgpu', 'declared']),
  index: z.number().int().min(0).optional(),
  pciBusId: z.string().optional(),
});

const nullableCount = count.nullable();

export const nodeStatsSchema = z.looseObject({
  time: z.number(),
  collectMs: count,
  cpu: z.object({ cores: count, utilisation: nullableCount, load1: count }),
  memory: z.object({ totalMB: count, usedMB: count, availableMB: count }),
  gpus: z.array(
    z.object({
      id: z.string(),
      source: z.enum(['nvidia-smi', 'webgpu', 'declared']),
      utilisation: nullableCount,
      memoryUsedMB: nullableCount,
      memoryTotalMB: nullableCount,
      why: z.string().nullable(),
    }),
  ),
  workers: z.array(z.object({ port, topologyId: z.string(), pid: z.number().int(), rssMB: nullableCount, cpu: nullableCount })),
  notes: z.array(z.string()),
});

export const supervisorInfoSchema = z.looseObject({
  id: z.string().min(1),
  host: z.string().min(1),
  ports: z.array(port),
  memoryMB: count,
  cpus: count,
  gpus: z.array(gpuInfoSchema),
  usedGpuSlots: z.record(z.string(), z.number()).optional(),
  startedAt: z.number(),
  heartbeatAt: z.number(),
  // A malformed collector round is left out; the supervisor itself stays valid.
  node: nodeStatsSchema.optional().catch(undefined),
  workerExits: z
    .array(
      z.object({
        topologyId: z.string(),
        port,
        deaths: count,
        fastDeaths: count,
        crashLooping: z.boolean(),
        lastExit: z.object({ code: z.number().nullable(), signal: z.string().nullable(), time: z.number() }),
        lastError: z.string().nullable(),
      }),
    )
    .optional()
    .catch(undefined),
  // A malformed address only costs `hstorm logs` this node, never the supervisor's slots.
  logServer: z.object({ host: z.string().min(1), port }).optional().catch(undefined),
  version: z.literal(1),
}) satisfies z.ZodType<SupervisorInfo>;

const groupingSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('shuffle') }),
  z.object({ type: z.literal('localOrShuffle') }),
  z.object({ type: z.literal('fields'), fields: z.array(z.string()) }),
  z.object({ type: z.literal('all') }),
  z.object({ type: z.literal('global') }),
  z.object({ type: z.literal('direct') }),
  z.object({ type: z.literal('twoChoice') }),
  z.object({ type: z.literal('loadAwareShuffle') }),
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('partialKey'), fields: z.array(z.string()) }),
  z.object({ type: z.literal('custom'), name: z.string() }),
]);

const configSchema = z.record(z.string(), z.unknown());

const windowSizeSchema = z.object({ unit: z.enum(['count', 'ms']), value: z.number().positive() });

const windowDefSchema = z.object({
  length: windowSizeSchema,
  slide: windowSizeSchema,
  timestampField: z.string().min(1).nullable(),
  eventTime: z.boolean(),
  lagMs: count,
  watermarkIntervalMs: z.number().positive(),
  idleTimeoutMs: z.number().positive().nullable(),
  lateStream: z.string().min(1).nullable(),
});

const stateDefSchema = z.object({
  messageIdField: z.string().min(1).nullable(),
  maxEventsInMemory: z.number().int().min(1).nullable(),
});

export const topologyDefSchema = z.object({
  components: z
    .array(
      z.object({
        id: z.string().min(1),
        kind: z.enum(['spout', 'bolt']),
        parallelism: z.number().int().min(1),
        streams: z.array(z.object({ id: z.string().min(1), fields: z.array(z.string()), direct: z.boolean() })),
        inputs: z.array(z.object({ component: z.string().min(1), stream: z.string().min(1), grouping: groupingSchema })),
        gpu: z.object({ memoryMB: count }).nullable(),
        config: configSchema,
        window: windowDefSchema.optional(),
        state: stateDefSchema.optional(),
      }),
    )
    .min(1),
  config: configSchema,
  serializations: z.array(z.string().min(1)).optional(),
}) satisfies z.ZodType<TopologyDef>;

const topologyCodeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('path'), path: z.string().min(1) }),
  z.object({ kind: z.literal('bundle'), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: count }),
]);

export const stormBaseSchema = z.looseObject({
  version: z.literal(1),
  id: z.string().min(1),
  name: z.string().min(1),
  status: z.enum(['active', 'inactive', 'killed', 'rebalancing']),
  launchTime: z.number(),
  def: topologyDefSchema,
  config: configSchema,
  code: topologyCodeSchema,
  killWaitSecs: z.number().min(0).optional(),
  killedAt: z.number().optional(),
  parallelismOverrides: z.record(z.string(), z.number().int().min(1)).optional(),
  logLevel: z.object({ level: z.enum(LOG_LEVELS), until: z.number().nullable() }).optional().catch(undefined),
}) satisfies z.ZodType<StormBase>;

const gpuBindingSchema = z.object({
  gpuId: z.string().min(1),
  name: z.string(),
  index: z.number().int().min(0).nullable(),
  pciBusId: z.string().optional(),
  source: z.enum(['nvidia-smi', 'webgpu', 'declared']),
});

const executorRefSchema = z.object({ component: z.string().min(1), task: z.number().int().min(1) });

const resourceVectorSchema = z.object({ cpu: count, memoryMB: count, gpuMemoryMB: count });

const queueEntrySchema = z.looseObject({
  state: z.enum(['waiting', 'reserved']),
  since: z.number(),
  reservedSince: z.number().nullable(),
  dominantShare: count,
  needs: z.string(),
  blockedBy: z.object({ topology: z.string(), why: z.enum(['share', 'reservation']), dominantShare: count }).nullable(),
  detail: z.string(),
});

export const assignmentSchema = z.looseObject({
  topologyId: z.string().min(1),
  epoch: z.number().int().min(0),
  workers: z.array(
    z.object({
      supervisorId: z.string().min(1),
      host: z.string().min(1),
      port,
      gpu: gpuBindingSchema.nullable(),
      executors: z.array(executorRefSchema),
      reason: z.string(),
      resources: resourceVectorSchema.optional(),
    }),
  ),
  unassigned: z.array(executorRefSchema.extend({ reason: z.string() })),
  scheduler: z.enum(['even', 'hetero', 'hdrf']),
  createdAt: z.number(),
  queue: queueEntrySchema.nullable().optional(),
}) satisfies z.ZodType<Assignment>;

const latencySchema = z.object({ count, mean: count, p50: count, p99: count, max: count });

/** [bucket, count] pairs: an integer bucket and a count ≥ 0, both finite. */
function isSparseHist(v: unknown): v is [number, number][] {
  if (!Array.isArray(v)) return false;
  for (const e of v) {
    if (!Array.isArray(e) || e.length !== 2 || !Number.isInteger(e[0]) || typeof e[1] !== 'number' || !(e[1] >= 0) || e[1] === Infinity) return false;
  }
  return true;
}

/**
 * A histogram in sparse form (common/histogram.ts). Checked by a loop rather
 * than as an array of zod tuples: nimbus parses every worker's record every
 * period, and tuple by tuple this was most of the cost of a record (a record
 * carries up to 32 pairs per histogram, a dozen histograms).
 */
const sparseHistSchema = z.custom<[number, number][]>(isSparseHist, 'a sparse histogram: [integer bucket, count ≥ 0] pairs');

/** The GPU section, as far as nimbus folds it (metrics-rollup.ts); the rest is shown as reported. */
const gpuMetricsSchema = z.looseObject({
  backend: z.string().nullable(),
  backendsRan: z.array(z.string()).optional(),
  fallback: z.boolean().optional(),
  fallbackReason: z.string().nullable().optional(),
  adapter: z
    .looseObject({
      vendor: z.string(),
      architecture: z.string(),
      device: z.string(),
      description: z.string(),
      software: z.boolean(),
      identity: z.string(),
      identityVerified: z.boolean(),
    })
    .nullable()
    .optional(),
  deviceStats: z
    .looseObject({ devices: count, lost: count, lastLost: z.string().nullable(), errors: count, lastError: z.string().nullable() })
    .nullable()
    .optional(),
  launches: count.optional(),
  failedLaunches: count.optional(),
  kernelMs: latencySchema.optional(),
  kernelHist: sparseHistSchema.optional(),
  kernelSum: count.optional(),
  inFlightMs: latencySchema.optional(),
  inFlightHist: sparseHistSchema.optional(),
  inFlightSum: count.optional(),
  busyMs: count.optional(),
});

/** Metrics v2 values as a task reports them; a malformed section is dropped (`.catch`), not the whole heartbeat. */
const userMetricsSchema = z.object({
  counters: z.record(z.string(), z.number()),
  gauges: z.record(z.string(), z.number().nullable()),
  histograms: z.record(z.string(), z.object({ count, mean: z.number(), p50: z.number(), p99: z.number(), max: z.number(), hist: sparseHistSchema, sum: z.number() })),
  meters: z.record(z.string(), z.object({ count, meanRate: count, m1Rate: count })),
});

/** A windowed bolt's section; malformed, it is dropped (`.catch`), not the heartbeat. */
const windowMetricsSchema = z.looseObject({
  spec: z.string(),
  eventTime: z.boolean(),
  windows: count,
  failedWindows: count,
  windowTuples: count,
  lastWindowTuples: count,
  maxWindowTuples: count,
  held: count,
  lateDropped: count,
  lateRouted: count,
  watermark: z.number().nullable(),
  watermarkLagMs: count.nullable(),
  activeInputs: count.nullable(),
  inputs: count.nullable(),
  evaluateMs: count,
});

/** A stateful bolt's or the checkpoint spout's section; malformed, it is dropped (`.catch`), not the heartbeat. */
const stateMetricsSchema = z.looseObject({
  role: z.enum(['bolt', 'checkpoint']),
  provider: z.enum(['memory', 'redis']),
  lastCommittedTxid: z.number().int().nullable(),
  commits: count,
  checkpointMs: latencySchema,
  checkpointHist: sparseHistSchema,
  checkpointSum: count,
  keys: count.nullable(),
  recoveries: count,
  failures: count,
  heldAcks: count,
  corruptEntries: count,
  phase: z.string().nullable(),
});

const componentErrorSchema = z.object({ time: z.number(), error: z.string() });

const executorMetricsSchema = z.looseObject({
  component: z.string(),
  task: z.number().int(),
  emitted: count,
  transferred: count,
  executed: count,
  acked: count,
  failed: count,
  ticks: count.optional(),
  staleTuples: count.optional(),
  executeLatencyMs: latencySchema,
  completeLatencyMs: latencySchema.nullable(),
  queueDepth: count,
  capacity: count,
  busyMs: count.optional(),
  uptimeMs: count.optional(),
  gpu: gpuMetricsSchema.optional().catch(undefined),
  // Split metrics are shown as reported; their inner shape belongs to the worker.
  split: z.looseObject({ gamma: z.number() }).optional(),
  window: windowMetricsSchema.optional().catch(undefined),
  state: stateMetricsSchema.optional().catch(undefined),
  // Sparse latency histograms, so percentiles can be merged across executors (common/histogram.ts).
  executeHist: sparseHistSchema.optional(),
  executeSum: count.optional(),
  completeHist: sparseHistSchema.nullable().optional(),
  completeSum: count.optional(),
  user: userMetricsSchema.optional().catch(undefined),
  errors: z.array(componentErrorSchema).optional().catch(undefined),
  // A malformed list is left out, not the whole beat: it is a report, not what liveness depends on.
  unplacedTargets: z.array(z.object({ component: z.string(), stream: z.string(), tuples: count, reason: z.string() })).optional().catch(undefined),
});

export const workerHeartbeatSchema = z.looseObject({
  version: z.literal(1),
  topologyId: z.string().min(1),
  supervisorId: z.string().min(1),
  host: z.string(),
  port,
  pid: z.number().int(),
  epoch: z.number().int(),
  time: z.number(),
  uptimeSecs: count,
  rssMB: count,
  droppedFrames: count,
  // Issue 28's fencing and stale-tuple counts: reports, so a malformed one is left out rather than the beat.
  staleFrames: count.optional().catch(undefined),
  staleTuples: count.optional().catch(undefined),
  spoutsPaused: z.boolean().optional().catch(undefined),
  executors: z.array(executorMetricsSchema),
  // A report, not what liveness depends on: a malformed section is left out, not the whole beat.
  backpressure: z
    .object({
      overloadedTasks: z.array(count),
      overloadEvents: count,
      statusesSent: count,
      overflowTuples: count,
      overflowMax: count,
      linkPauses: count,
      // Added after the section: a worker of an earlier version leaves it out.
      readPauses: count.default(0),
      remoteOverloadedTasks: z.array(count),
      statusesReceived: count,
      statusesDropped: count,
      heldChecks: count,
    })
    .optional()
    .catch(undefined),
});

/** The heartbeat as parsed: the worker-owned GPU/split details stay as sent. */
export type ParsedWorkerHeartbeat = z.output<typeof workerHeartbeatSchema>;

/** The ephemeral ZkPaths.nimbus node: where the running nimbus serves HTTP. */
export interface NimbusInfo {
  host: string;
  port: number;
  startedAt: number;
  version: 1;
}

export const nimbusInfoSchema = z.looseObject({
  host: z.string().min(1),
  port,
  startedAt: z.number(),
  version: z.literal(1),
}) satisfies z.ZodType<NimbusInfo>;
