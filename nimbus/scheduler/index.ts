/**
 * nimbus/scheduler — where every executor runs. Pure functions, no I/O: the
 * input is a snapshot of the cluster plus the topologies to place (priority
 * order) and the slots others already hold; the output is, per topology, its
 * workers (supervisor, port, GPU binding, executors, and the reason for each
 * decision) and the executors that could not be placed, each with why.
 *
 * Three strategies (DESIGN §5), picked by `nimbus.scheduler`:
 * - `even`: Storm's EvenScheduler (round-robin, interleaved slots), GPU-naive;
 * - `hetero`: H-Storm's Algorithm 1 (α packing, β GPU scoring);
 * - `hdrf`: HDRF between topologies (smallest dominant share of cores,
 *   memory and GPU memory first, all-or-nothing admission, a reservation after
 *   OT), `hetero` placement within each. `input.fairness` puts the same HDRF
 *   layer over `even` or `hetero` (`nimbus.scheduler.fairness=hdrf`).
 *
 * @example
 * const { assignments } = schedule({ cluster, topologies: [topo], occupied: [] }, 'hetero');
 * for (const w of assignments.get(topo.id)!.workers) console.log(w.supervisorId, w.port, w.reason);
 */
import { scheduleEven } from './even.js';
import { scheduleHdrf } from './hdrf.js';
import { scheduleHetero } from './hetero.js';
import type { ScheduleInput, ScheduleResult, SchedulerStrategy } from './types.js';

export type {
  FairnessOptions,
  OccupiedSlot,
  PlacementStrategy,
  SchedComponent,
  SchedSupervisor,
  SchedTopology,
  ScheduleInput,
  ScheduleResult,
  SchedulerCluster,
  SchedulerStrategy,
  TopologySchedule,
} from './types.js';
export { workerCap, type WorkerCap } from './alpha.js';
export { gpuScore } from './beta.js';
export { fairnessOf, type SchedulerConfig, type SchedulerConfigKey } from './config-view.js';
export { clusterTotals, dominantShare, describeVector, fmtShare, type DominantShare, type NodeCapacity } from './resource-math.js';
export { describeQueue, secsSince } from './queue-text.js';

/** Places every topology's executors; the same input always gives the same output. */
export function schedule(input: ScheduleInput, strategy: SchedulerStrategy): ScheduleResult {
  if (strategy === 'hdrf' || input.fairness) return scheduleHdrf(input, strategy === 'even' ? 'even' : 'hetero');
  return strategy === 'even' ? scheduleEven(input) : scheduleHetero(input);
}
