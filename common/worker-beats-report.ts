/**
 * The one message a supervisor sends nimbus every `worker.heartbeat.frequency.secs`:
 * the liveness of all its workers, read from their local heartbeat files
 * (common/local-heartbeat.ts). This is Storm 2's path (worker → supervisor →
 * nimbus, `sendSupervisorWorkerHeartbeats`): liveness costs nimbus one small
 * message per supervisor per period and ZooKeeper nothing, while metrics go
 * their own way, less often (`topology.stats.report.secs`).
 *
 * A worker's beat travels as an age measured on its own machine (the
 * supervisor reads the file the worker wrote on the same clock), so nimbus
 * never compares two machines' clocks: it places the beat at its own receive
 * time minus the age. A supervisor lists only workers whose beat is their own
 * (the pid matches the process it runs); an empty list still says "this
 * supervisor reports", which tells nimbus to judge its workers by these
 * messages alone (nimbus/heartbeat-tracker.ts).
 */
import { z } from 'zod';

export const WORKER_BEATS_TYPE = 'worker-beats';

const workerBeatSchema = z.looseObject({
  topologyId: z.string().min(1).max(512),
  port: z.number().int().min(1).max(65535),
  pid: z.number().int(),
  /** Epoch of the assignment the worker follows (null: its beat does not say). */
  epoch: z.number().int().nonnegative().nullable(),
  /** How old the worker's local beat was when the supervisor read it, in ms (its own machine's clock). */
  ageMs: z.number().nonnegative(),
});

export const workerBeatsReportSchema = z.looseObject({
  type: z.literal(WORKER_BEATS_TYPE),
  version: z.literal(1),
  supervisorId: z.string().regex(/^[A-Za-z0-9._:-]+$/, 'a supervisor id').max(512),
  /** A supervisor has a few slots; a bound keeps one message from costing nimbus more than a few. */
  workers: z.array(workerBeatSchema).max(4096),
});

export type WorkerBeat = z.infer<typeof workerBeatSchema>;
export type WorkerBeatsReport = z.infer<typeof workerBeatsReportSchema>;

/** Delivers a report to nimbus: over HTTP in cluster mode, a direct call in local mode. */
export type WorkerBeatsSink = (report: WorkerBeatsReport) => Promise<void>;
