/**
 * `hstorm schedule` without a cluster: an operator's cluster description (JSON,
 * see cluster-file.ts) plus a topology and its config go through the real
 * strategies, and the placement comes back with every reason. It takes what
 * nimbus takes: the same config keys (strategy, fairness, OT, GPU fallback to
 * CPU from the config file unless a flag overrides it) and the same occupied
 * state (used ports and GPU slots, GPU memory in use, running topologies and
 * their shares), so its answer is the one nimbus would give now — including
 * an HDRF decision to admit the topology or queue it, and why.
 */
import type { QueueEntry } from '../common/assignment.js';
import { SchedulingError } from '../common/errors.js';
import type { TopologyDef } from '../common/topology-def.js';
import { parseClusterState } from './cluster-file.js';
import { describeQueue, fairnessOf, schedule, type SchedulerConfig, type SchedulerStrategy } from './scheduler/index.js';
import { toSchedTopology } from './sched-topology.js';

export { parseClusterFile, parseClusterState, toSchedSupervisor, type ClusterFile, type ClusterState } from './cluster-file.js';
export { componentDemand, toSchedTopology } from './sched-topology.js';

export interface DryRunOptions {
  /** Parsed JSON of the cluster file. */
  cluster: unknown;
  topology: TopologyDef;
  /** The topology's effective config (cluster config overridden by topology config). */
  config: SchedulerConfig;
  topologyId?: string;
  /** Default: `nimbus.scheduler` from the config. */
  strategy?: SchedulerStrategy;
  /** Default: `nimbus.scheduler.gpu.fallback.cpu` from the config. */
  gpuFallbackToCpu?: boolean;
  /** The clock HDRF decides at (epoch ms). Default: now. */
  now?: number;
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
  /** With HDRF: why the topology would wait instead of starting (null: it would start, or no fairness). */
  queue: (QueueEntry & { reason: string }) | null;
}

export function dryRun(opts: DryRunOptions): DryRunResult {
  const state = parseClusterState(opts.cluster, opts.config);
  const id = opts.topologyId ?? 'dry-run';
  if (state.running.includes(id)) throw new SchedulingError(`cluster file: a running topology already has the id "${id}"; name the dry run otherwise (--name)`);
  const cfg = opts.config;
  const strategy = opts.strategy ?? cfg['nimbus.scheduler'];
  const fairness = fairnessOf({ ...cfg, 'nimbus.scheduler': strategy });
  const now = opts.now ?? Date.now();
  const topo = { ...toSchedTopology(id, opts.topology, opts.config), waitingSince: now };
  // Without fairness, running topologies are just occupied slots (as nimbus passes them).
  const occupied = fairness ? state.occupied : state.occupied.map(({ supervisorId, port, gpuId, resources }) => ({ supervisorId, port, gpuId, ...(resources && { resources }) }));
  const result = schedule(
    { cluster: state.cluster, topologies: [topo], occupied, gpuFallbackToCpu: opts.gpuFallbackToCpu ?? cfg['nimbus.scheduler.gpu.fallback.cpu'], fairness, now },
    strategy,
  );
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
    queue: t.queue ? { ...t.queue, reason: describeQueue(t.queue, now) } : null,
  };
}
