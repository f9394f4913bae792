/**
 * Storm UI REST API, cluster level: `/cluster/summary`, `/nimbus/summary`,
 * `/supervisor/summary` and `/topology/summary`, with Storm's field names.
 * What Storm lacks (GPU slots and models, the node collectors' figures, the
 * scheduler) sits under an `hstorm` object in each record. docs/storm-ui-api.md
 * says which Storm fields are filled and which are null, and why.
 */
import type { Assignment } from '../../common/assignment.js';
import { withDefaults } from '../../common/config/index.js';
import type { NodeStats, SupervisorInfo } from '../../common/resources.js';
import type { StormBase } from '../../common/storm-base.js';
import type { ClusterSnapshot, TopologyHoldings } from '../../nimbus/read-model.js';
import type { GpuSummary, SupervisorSummary } from '../../nimbus/views.js';
import { prettyUptime, stormStatus } from './format.js';

const secs = (ms: number): number => Math.max(0, Math.round(ms / 1000));

/** Measured CPU and memory of a node: Storm's "used" figures come from the scheduler's bookkeeping, ours from the collector. */
function measured(node: NodeStats | undefined, cpus: number): { usedMem: number | null; usedCpu: number | null; availMem: number | null; availCpu: number | null } {
  if (!node) return { usedMem: null, usedCpu: null, availMem: null, availCpu: null };
  const util = node.cpu.utilisation;
  return {
    usedMem: node.memory.usedMB,
    availMem: node.memory.availableMB,
    usedCpu: util === null ? null : round(util * cpus * 100),
    availCpu: util === null ? null : round((1 - util) * cpus * 100),
  };
}

function gpuView(g: GpuSummary, node: NodeStats | undefined) {
  const use = node?.gpus.find((x) => x.id === g.id);
  return {
    ...g,
    freeSlots: Math.max(0, g.slots - g.usedSlots),
    utilisation: use?.utilisation ?? null,
    memoryUsedMB: use?.memoryUsedMB ?? null,
    memoryTotalMB: use?.memoryTotalMB ?? g.memoryMB,
    usageNote: use ? use.why : node ? 'not in the node collector round' : 'no node collector round yet',
  };
}

export function supervisorRecord(row: SupervisorSummary, info: SupervisorInfo | undefined, version: string) {
  const node = info?.node;
  const gpuSlotsUsed = row.gpus.reduce((n, g) => n + g.usedSlots, 0);
  const m = measured(node, row.cpus);
  return {
    id: row.id,
    host: row.host,
    uptime: prettyUptime(row.uptimeSecs),
    uptimeSeconds: row.uptimeSecs,
    slotsTotal: row.slotsTotal,
    slotsUsed: row.slotsUsed,
    slotsFree: row.slotsTotal - row.slotsUsed,
    totalMem: row.memoryMB,
    totalCpu: row.cpus * 100,
    usedMem: m.usedMem,
    usedCpu: m.usedCpu,
    version,
    hstorm: {
      ports: row.ports,
      usedPorts: row.usedPorts,
      /** Ports held by CPU workers; a GPU worker holds a port too (it moves the GPU's data). */
      cpuSlotsUsed: row.slotsUsed - gpuSlotsUsed,
      gpuSlotsTotal: row.gpus.reduce((n, g) => n + g.slots, 0),
      gpuSlotsUsed,
      gpus: row.gpus.map((g) => gpuView(g, node)),
      node: node ?? null,
      heartbeatAt: info?.heartbeatAt ?? null,
    },
  };
}

export function clusterSummary(c: ClusterSnapshot) {
  let slotsTotal = 0;
  let slotsUsed = 0;
  let gpuSlotsTotal = 0;
  let gpuSlotsUsed = 0;
  let totalMem = 0;
  let totalCpu = 0;
  let availMem: number | null = 0;
  let availCpu: number | null = 0;
  const models = new Map<string, { name: string; count: number; declared: number }>();
  for (const r of c.rows) {
    slotsTotal += r.slotsTotal;
    slotsUsed += r.slotsUsed;
    totalMem += r.memoryMB;
    totalCpu += r.cpus * 100;
    const m = measured(c.supervisors.get(r.id)?.node, r.cpus);
    availMem = availMem === null || m.availMem === null ? null : availMem + m.availMem;
    availCpu = availCpu === null || m.availCpu === null ? null : availCpu + m.availCpu;
    for (const g of r.gpus) {
      gpuSlotsTotal += g.slots;
      gpuSlotsUsed += g.usedSlots;
      const e = models.get(g.name) ?? { name: g.name, count: 0, declared: 0 };
      e.count++;
      if (g.declared) e.declared++;
      models.set(g.name, e);
    }
  }
  let executors = 0;
  for (const a of c.assignments.values()) executors += a.workers.reduce((n, w) => n + w.executors.length, 0) + a.unassigned.length;
  // What the workers hold of the cores and memory the supervisors offer (HDRF's bookkeeping, as Storm RAS's).
  const { total, held } = c.resources;
  const pct = (x: number, of: number): number | null => (of > 0 ? round((100 * x) / of) : null);
  return {
    stormVersion: `hstorm ${c.version}`,
    supervisors: c.rows.length,
    topologies: c.storms.size,
    slotsTotal,
    slotsUsed,
    slotsFree: slotsTotal - slotsUsed,
    executorsTotal: executors,
    // One task per executor in hstorm.
    tasksTotal: executors,
    schedulerDisplayResource: false,
    totalMem,
    totalCpu,
    availMem: c.rows.length === 0 ? null : availMem,
    availCpu: c.rows.length === 0 ? null : availCpu === null ? null : round(availCpu),
    memAssignedPercentUtil: pct(held.memoryMB, total.memoryMB),
    cpuAssignedPercentUtil: pct(held.cpu, total.cpu),
    hstorm: {
      nimbus: { host: c.nimbus.host, port: c.nimbus.port, startedAt: c.nimbus.startedAt, uptimeSecs: secs(c.now - c.nimbus.startedAt) },
      scheduler: c.scheduler,
      fairness: c.fairness.mode,
      reservationTimeoutSecs: c.fairness.reservationTimeoutSecs,
      queued: [...c.assignments.values()].filter((a) => a.queue && c.storms.has(a.topologyId)).length,
      resources: c.resources,
      gpus: c.rows.reduce((n, r) => n + r.gpus.length, 0),
      gpuSlotsTotal,
      gpuSlotsUsed,
      gpuSlotsFree: gpuSlotsTotal - gpuSlotsUsed,
      gpuModels: [...models.values()].sort((a, b) => a.name.localeCompare(b.name)),
      corruptZnodes: c.corruptZnodes,
      corruptReads: c.corruptReads,
    },
  };
}

export function nimbusSummary(c: ClusterSnapshot) {
  const up = secs(c.now - c.nimbus.startedAt);
  return {
    nimbuses: [
      {
        host: c.nimbus.host ?? 'local',
        port: c.nimbus.port,
        // hstorm runs one nimbus; whoever answers is the leader.
        status: 'Leader',
        nimbusUpTime: prettyUptime(up),
        nimbusUpTimeSeconds: String(up),
        nimbusLogLink: null,
        version: c.version,
      },
    ],
  };
}

export function supervisorSummary(c: ClusterSnapshot) {
  return { supervisors: c.rows.map((r) => supervisorRecord(r, c.supervisors.get(r.id), c.version)), schedulerDisplayResource: false };
}

export function topologyRecord(storm: StormBase, a: Assignment | null, now: number, fair: TopologyHoldings) {
  const placed = a?.workers.reduce((n, w) => n + w.executors.length, 0) ?? 0;
  const { holds, asks } = fair;
  const executors = placed + (a?.unassigned.length ?? 0);
  const up = secs(now - storm.launchTime);
  const config = withDefaults(storm.config);
  return {
    id: storm.id,
    encodedId: encodeURIComponent(storm.id),
    name: storm.name,
    status: stormStatus(storm.status),
    uptime: prettyUptime(up),
    uptimeSeconds: up,
    tasksTotal: executors,
    workersTotal: a?.workers.length ?? 0,
    executorsTotal: executors,
    replicationCount: 1,
    // Storm RAS's figures from hstorm's requests: memory in MB (all on-heap), CPU in % of a core.
    requestedMemOnHeap: asks.memoryMB,
    requestedMemOffHeap: 0,
    requestedTotalMem: asks.memoryMB,
    requestedCpu: round(asks.cpu * 100),
    assignedMemOnHeap: holds.memoryMB,
    assignedMemOffHeap: 0,
    assignedTotalMem: holds.memoryMB,
    assignedCpu: round(holds.cpu * 100),
    hstorm: {
      requestedGpuMem: asks.gpuMemoryMB,
      assignedGpuMem: holds.gpuMemoryMB,
      dominantShare: fair.dominantShare,
      queue: fair.queue,
      workersRequested: config['topology.workers'],
      gpuWorkersRequested: config['topology.gpu.workers'],
      gpuWorkers: a?.workers.filter((w) => w.gpu !== null).length ?? 0,
      unassigned: a?.unassigned.length ?? 0,
      scheduler: a?.scheduler ?? null,
      epoch: a?.epoch ?? null,
      crashLooping: fair.crashLoopingWorkers > 0,
      crashLoopingWorkers: fair.crashLoopingWorkers,
    },
  };
}

export function topologySummary(c: ClusterSnapshot) {
  const list = [...c.storms.values()].sort((a, b) => a.launchTime - b.launchTime);
  const record = (s: StormBase) => topologyRecord(s, c.assignments.get(s.id) ?? null, c.now, c.holdings.get(s.id)!);
  return { topologies: list.map(record), schedulerDisplayResource: false };
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

export type ClusterSummaryView = ReturnType<typeof clusterSummary>;
export type NimbusSummaryView = ReturnType<typeof nimbusSummary>;
export type SupervisorSummaryView = ReturnType<typeof supervisorSummary>;
export type TopologySummaryView = ReturnType<typeof topologySummary>;
