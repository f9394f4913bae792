/**
 * nimbus/scheduler — where every executor runs. Pure functions, no I/O: the
 * input is a snapshot of the cluster plus the topologies to place (priority
 * order) and the slots others already hold; the output is, per topology, its
 * workers (supervisor, port, GPU binding, executors, and the reason for each
 * decision) and the executors that could not be placed, each with why.
 *
 * Two strategies (DESIGN §5), picked by `nimbus.scheduler`:
 * - `even`: Storm's EvenScheduler (round-robin, interleaved slots), GPU-naive;
 * - `hetero`: H-Storm's Algorithm 1 (α packing, β GPU scoring).
 *
 * @example
 * const { assignments } = schedule({ cluster, topologies: [topo], occupied: [] }, 'hetero');
 * for (const w of assignments.get(topo.id)!.workers) console.log(w.supervisorId, w.port, w.reason);
 */
import { scheduleEven } from './even.js';
import { scheduleHetero } from './hetero.js';
import type { ScheduleInput, ScheduleResult, SchedulerStrategy } from './types.js';

export type {
  OccupiedSlot,
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
export { schedulerConfig, type SchedulerConfig } from './config-view.js';

/** Places every topology's executors; the same input always gives the same output. */
export function schedule(input: ScheduleInput, strategy: SchedulerStrategy): ScheduleResult {
  return strategy === 'even' ? scheduleEven(input) : scheduleHetero(input);
}
