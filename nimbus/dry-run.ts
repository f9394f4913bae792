/**
 * `hstorm schedule` without a cluster: an operator's cluster description (JSON)
 * plus a topology and its config go through the real strategies, and the
 * placement comes back with every reason. Also the one place that turns a
 * `TopologyDef` + config into the scheduler's `SchedTopology`, so nimbus and
 * the dry run build it alike.
 *
 * The slot rules applied to the described GPUs are the supervisor's own
 * (supervisor/gpu-slots.ts), so a dry run counts slots as a live cluster would.
 */
import { z } from 'zod';
import { SchedulingError } from '../common/errors.js';
import type { Config } from '../common/config/index.js';
import { schedulerConfig, type SchedulerConfig } from './scheduler/config-view.js';
import type { GpuInfo } from '../common/resources.js';
import { ACKER_COMPONENT, computeTasks, type TopologyDef } from '../common/topology-def.js';
import { gpuSlotLimit } from '../common/gpu-slots.js';
import { coresPerSmFor } from '../common/gpu-sm-table.js';
import { scheduleEven } from './scheduler/even.js';
import { scheduleHetero } from './scheduler/hetero.js';
import type { SchedSupervisor, SchedTopology, SchedulerCluster, SchedulerStrategy } from './scheduler/types.js';

const posInt = z.number().int().min(1);

const gpuSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    smCount: posInt,
    coresPerSm: posInt.optional(),
    clockMHz: z.number().positive(),
    memoryMB: z.number().min(0).optional(),
    computeCapability: z.string().regex(/^\d+\.\d+$/, 'like "8.6"'),
    slots: z.number().int().min(0).optional(),
    // Present when the file is a dump of supervisors' reports.
    source: z.enum(['nvidia-smi', 'webgpu', 'declared']).optional(),
    index: z.number().int().min(0).optional(),
    pciBusId: z.string().optional(),
  })
  .strict();

const supervisorSchema = z
  .object({
    id: z.string().min(1),
    host: z.string().min(1).optional(),
    ports: z.array(z.number().int().min(1).max(65535)),
    gpus: z.array(gpuSchema).default([]),
    // Fields of a supervisor report (SupervisorInfo) the dry run does not need.
    memoryMB: z.number().optional(),
    cpus: z.number().optional(),
    usedGpuSlots: z.record(z.string(), z.number()).optional(),
    startedAt: z.number().optional(),
    heartbeatAt: z.number().optional(),
    version: z.number().optional(),
  })
  .strict();

const clusterSchema = z.object({ supervisors: z.array(supervisorSchema) }).strict();

export type ClusterFile = z.input<typeof clusterSchema>;

/** A validated `Config`, or just the keys the scheduler reads. */
export type SchedulerConfigInput = Config | SchedulerConfig;

/** `supervisors[2].gpus[0].smCount` */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

export function toSchedSupervisor(
  s: z.output<typeof supervisorSchema>,
  cfg: Pick<SchedulerConfig, 'supervisor.gpu.slots' | 'supervisor.gpu.mps.max.clients'>,
): SchedSupervisor {
  const gpus: GpuInfo[] = s.gpus.map((g, i) => {
    const gpu: GpuInfo = {
      id: g.id,
      name: g.name,
      smCount: g.smCount,
      coresPerSm: g.coresPerSm ?? coresPerSmFor(g.computeCapability).cores,
      clockMHz: g.clockMHz,
      memoryMB: g.memoryMB ?? 0,
      computeCapability: g.computeCapability,
      slots: gpuSlotLimit(g.computeCapability, g.slots ?? cfg['supervisor.gpu.slots'], cfg['supervisor.gpu.mps.max.clients']).slots,
      source: g.source ?? 'declared',
      index: g.index ?? i,
    };
    if (g.pciBusId !== undefined) gpu.pciBusId = g.pciBusId;
    return gpu;
  });
  return { id: s.id, host: s.host ?? s.id, ports: s.ports, gpus };
}

/** Validates the operator's cluster JSON; the error names the first bad field. */
export function parseClusterFile(json: unknown, config: SchedulerConfigInput): SchedulerCluster {
  const cfg = schedulerConfig(config);
  const r = clusterSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue ? fieldPath(issue.path) : '(top level)';
    throw new SchedulingError(`cluster file: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const seen = new Set<string>();
  for (const s of r.data.supervisors) {
    if (seen.has(s.id)) throw new SchedulingError(`cluster file: supervisor id "${s.id}" appears twice`);
    seen.add(s.id);
  }
  return { supervisors: r.data.supervisors.map((s) => toSchedSupervisor(s, cfg)) };
}

/**
 * The scheduler's view of a topology. `cfg` is the topology's effective
 * config (cluster config overridden by topology config); ackers default to one per worker.
 */
export function toSchedTopology(id: string, def: TopologyDef, cfg: SchedulerConfigInput): SchedTopology {
  const config = schedulerConfig(cfg);
  const numWorkers = config['topology.workers'];
  const ackers = config['topology.acker.executors'] ?? numWorkers;
  const components = def.components.map((c) => ({
    id: c.id,
    parallelism: c.parallelism,
    gpu: c.gpu !== null,
    inputs: [...new Set(c.inputs.map((i) => i.component))],
  }));
  if (ackers > 0) components.push({ id: ACKER_COMPONENT, parallelism: ackers, gpu: false, inputs: [] });
  return {
    id,
    components,
    executors: computeTasks(def, ackers).map((t) => ({ component: t.component, task: t.task })),
    numWorkers,
    numGpuWorkers: config['topology.gpu.workers'],
    alpha: config['hstorm.scheduler.alpha'],
    beta: config['hstorm.gpu.beta'],
  };
}

export interface DryRunOptions {
  /** Parsed JSON of the cluster file. */
  cluster: unknown;
  topology: TopologyDef;
  /** The topology's effective config (cluster config overridden by topology config). */
  config: SchedulerConfigInput;
  topologyId?: string;
  /** Default: `nimbus.scheduler` from the config. */
  strategy?: SchedulerStrategy;
  gpuFallbackToCpu?: boolean;
}

export interface DryRunWorker {
  supervisor: string;
  port: number;
  /** GPU id, or null for a CPU worker. */
  gpu: string | null;
  executors: { component: string; task: number }[];
  reason: string;
}

export interface DryRunResult {
  workers: DryRunWorker[];
  unassigned: { component: string; task: number; reason: string }[];
}

export function dryRun(opts: DryRunOptions): DryRunResult {
  const cluster = parseClusterFile(opts.cluster, opts.config);
  const id = opts.topologyId ?? 'dry-run';
  const topo = toSchedTopology(id, opts.topology, opts.config);
  const input = { cluster, topologies: [topo], occupied: [], gpuFallbackToCpu: opts.gpuFallbackToCpu ?? false };
  const strategy = opts.strategy ?? schedulerConfig(opts.config)['nimbus.scheduler'];
  const result = strategy === 'even' ? scheduleEven(input) : scheduleHetero(input);
  const t = result.assignments.get(id) ?? { workers: [], unassigned: [] };
  return {
    workers: t.workers.map((w) => ({
      supervisor: w.supervisorId,
      port: w.port,
      gpu: w.gpu ? w.gpu.gpuId : null,
      executors: w.executors,
      reason: w.reason,
    })),
    unassigned: t.unassigned.map((u) => ({ component: u.component, task: u.task, reason: u.reason })),
  };
}
