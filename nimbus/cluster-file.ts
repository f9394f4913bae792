/**
 * The cluster description `hstorm schedule` reads (docs/scheduling.md, "Dry
 * run"): supervisors — as written by hand, as stored in their znodes
 * (SupervisorInfo) or as `GET /api/v1/supervisors` returns them
 * (SupervisorSummary) — plus, optionally, the topologies already running and
 * their workers. What is in use (`usedPorts`, a GPU's `usedSlots` /
 * `usedMemoryMB`, `usedGpuSlots`, the running workers) becomes the occupied
 * slots the scheduler sees, exactly as nimbus would pass them, so a dry run
 * tells the truth about a live cluster: spare capacity, β's idleness term,
 * GPU memory left, and the dominant shares HDRF orders by.
 *
 * The slot rules applied to the described GPUs are the supervisor's own
 * (common/gpu-slots.ts), so a dry run counts slots as a live cluster would.
 */
import { z } from 'zod';
import { SchedulingError } from '../common/errors.js';
import { gpuSlotLimit } from '../common/gpu-slots.js';
import { coresPerSmFor } from '../common/gpu-sm-table.js';
import type { GpuInfo, ResourceVector } from '../common/resources.js';
import type { SchedulerConfig } from './scheduler/config-view.js';
import type { OccupiedSlot, SchedSupervisor, SchedulerCluster } from './scheduler/types.js';

const posInt = z.number().int().min(1);
const count = z.number().min(0);

const gpuSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    smCount: posInt,
    coresPerSm: posInt.optional(),
    clockMHz: z.number().positive(),
    memoryMB: count.optional(),
    computeCapability: z.string().regex(/^\d+\.\d+$/, 'like "8.6"'),
    slots: z.number().int().min(0).optional(),
    // What is in use on this GPU (a dump of GET /supervisors has them).
    usedSlots: z.number().int().min(0).optional(),
    usedMemoryMB: count.optional(),
    // Present when the file is a dump of supervisors' reports or of GET /supervisors.
    source: z.enum(['nvidia-smi', 'webgpu', 'declared']).optional(),
    index: z.number().int().min(0).optional(),
    pciBusId: z.string().optional(),
    declared: z.boolean().optional(),
    performance: z.number().optional(),
  })
  .strict();

const supervisorSchema = z
  .object({
    id: z.string().min(1),
    host: z.string().min(1).optional(),
    ports: z.array(z.number().int().min(1).max(65535)),
    gpus: z.array(gpuSchema).default([]),
    /** Cores and memory the node offers: HDRF's shares and admission read them. */
    cpus: count.optional(),
    memoryMB: count.optional(),
    /** Ports in use (by the topologies listed below or by others). */
    usedPorts: z.array(z.number().int().min(1).max(65535)).optional(),
    usedGpuSlots: z.record(z.string(), z.number().int().min(0)).optional(),
    // Fields of a supervisor report (its znode) or summary (GET /api/v1/supervisors) the dry run does not need: named,
    // so that a dump is taken as it is while a typo in a hand-written file is still refused.
    slotsTotal: z.number().optional(),
    slotsUsed: z.number().optional(),
    uptimeSecs: z.number().optional(),
    startedAt: z.number().optional(),
    heartbeatAt: z.number().optional(),
    version: z.number().optional(),
    logServer: z.unknown().optional(),
    node: z.unknown().optional(),
    workerExits: z.unknown().optional(),
  })
  .strict();

const runningWorkerSchema = z
  .object({
    supervisor: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    /** The GPU id, `{ gpuId }` as `describe --json` prints it, or null for a CPU worker. */
    gpu: z.union([z.string().min(1), z.looseObject({ gpuId: z.string().min(1) }), z.null()]).default(null),
    resources: z.object({ cpu: count.default(0), memoryMB: count.default(0), gpuMemoryMB: count.default(0) }).strict().optional(),
  })
  .loose();

const runningTopologySchema = z.object({ id: z.string().min(1), workers: z.array(runningWorkerSchema) }).loose();

const clusterSchema = z
  .object({
    supervisors: z.array(supervisorSchema),
    /** Topologies already running: they hold their workers' slots, and count in HDRF's shares. */
    topologies: z.array(runningTopologySchema).default([]),
  })
  .strict();

export type ClusterFile = z.input<typeof clusterSchema>;
type SupervisorEntry = z.output<typeof supervisorSchema>;

/** What a cluster file describes: the cluster and what is in use on it. */
export interface ClusterState {
  cluster: SchedulerCluster;
  occupied: OccupiedSlot[];
  /** Ids of the running topologies it lists. */
  running: string[];
}

/** `supervisors[2].gpus[0].smCount` */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

export function toSchedSupervisor(s: SupervisorEntry, cfg: Pick<SchedulerConfig, 'supervisor.gpu.slots' | 'supervisor.gpu.mps.max.clients'>): SchedSupervisor {
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
  const out: SchedSupervisor = { id: s.id, host: s.host ?? s.id, ports: s.ports, gpus };
  if (s.cpus !== undefined && s.cpus > 0) out.cpuCores = s.cpus;
  if (s.memoryMB !== undefined && s.memoryMB > 0) out.memoryMB = s.memoryMB;
  return out;
}

function parse(json: unknown): z.output<typeof clusterSchema> {
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
  return r.data;
}

/** Validates the operator's cluster JSON; the error names the first bad field. */
export function parseClusterFile(json: unknown, config: SchedulerConfig): SchedulerCluster {
  return parseClusterState(json, config).cluster;
}

/** The cluster and its occupied slots (running topologies' workers first, then anonymous use). */
export function parseClusterState(json: unknown, config: SchedulerConfig): ClusterState {
  const data = parse(json);
  const cluster: SchedulerCluster = { supervisors: data.supervisors.map((s) => toSchedSupervisor(s, config)) };
  const byId = new Map(data.supervisors.map((s, i) => [s.id, { entry: s, sched: cluster.supervisors[i]! }]));
  const occupied: OccupiedSlot[] = [];
  const taken = new Set<string>();
  const onGpu = new Map<string, { slots: number; memMB: number }>();
  const ids = new Set<string>();

  data.topologies.forEach((t, ti) => {
    if (ids.has(t.id)) throw new SchedulingError(`cluster file: topologies[${ti}]: topology id "${t.id}" appears twice`);
    ids.add(t.id);
    t.workers.forEach((w, wi) => {
      const where = `cluster file: topologies[${ti}].workers[${wi}]`;
      const sup = byId.get(w.supervisor);
      if (!sup) throw new SchedulingError(`${where}: supervisor "${w.supervisor}" is not among the supervisors`);
      if (!sup.entry.ports.includes(w.port)) throw new SchedulingError(`${where}: port ${w.port} is not one of ${w.supervisor}'s ports`);
      const key = `${w.supervisor}:${w.port}`;
      if (taken.has(key)) throw new SchedulingError(`${where}: ${key} is held by two workers`);
      taken.add(key);
      const gpuId = w.gpu === null ? null : typeof w.gpu === 'string' ? w.gpu : w.gpu.gpuId;
      if (gpuId !== null && !sup.entry.gpus.some((g) => g.id === gpuId)) throw new SchedulingError(`${where}: GPU "${gpuId}" is not on ${w.supervisor}`);
      const resources: ResourceVector = { cpu: 0, memoryMB: 0, gpuMemoryMB: 0, ...w.resources };
      if (gpuId === null) resources.gpuMemoryMB = 0;
      occupied.push({ supervisorId: w.supervisor, port: w.port, gpuId, topologyId: t.id, resources });
      if (gpuId !== null) {
        const k = `${w.supervisor}|${gpuId}`;
        const u = onGpu.get(k) ?? { slots: 0, memMB: 0 };
        onGpu.set(k, { slots: u.slots + 1, memMB: u.memMB + resources.gpuMemoryMB });
      }
    });
  });

  // What else is in use, by workers the file does not list: GPU workers first (each takes a port beside its GPU).
  for (const s of data.supervisors) {
    const used = (s.usedPorts ?? []).filter((p) => s.ports.includes(p) && !taken.has(`${s.id}:${p}`));
    const freeHighFirst = s.ports.filter((p) => !taken.has(`${s.id}:${p}`) && !used.includes(p)).sort((a, b) => b - a);
    for (const g of s.gpus) {
      const listed = onGpu.get(`${s.id}|${g.id}`) ?? { slots: 0, memMB: 0 };
      const slots = Math.max(0, (g.usedSlots ?? s.usedGpuSlots?.[g.id] ?? 0) - listed.slots);
      const memMB = Math.max(0, (g.usedMemoryMB ?? 0) - listed.memMB);
      for (let k = 0; k < slots; k++) {
        const port = used.shift() ?? freeHighFirst.shift();
        if (port === undefined) throw new SchedulingError(`cluster file: supervisor "${s.id}": GPU "${g.id}" has more used slots than the node has ports`);
        taken.add(`${s.id}:${port}`);
        const share = k === 0 ? memMB - Math.floor(memMB / slots) * (slots - 1) : Math.floor(memMB / slots);
        occupied.push({ supervisorId: s.id, port, gpuId: g.id, resources: { cpu: 0, memoryMB: 0, gpuMemoryMB: share } });
      }
    }
    for (const port of used) {
      taken.add(`${s.id}:${port}`);
      occupied.push({ supervisorId: s.id, port, gpuId: null });
    }
  }
  return { cluster, occupied, running: [...ids] };
}
