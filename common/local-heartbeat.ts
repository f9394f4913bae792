/**
 * A worker's heartbeat on its own machine's disk, for its supervisor (as
 * Storm's supervisor reads worker heartbeats from local disk). The supervisor
 * judges whether a worker is hung from this file alone, so a ZooKeeper outage
 * never makes a supervisor restart a healthy worker; and it forwards what the
 * files say to nimbus, one message for all its workers
 * (supervisor/worker-beat-reporter.ts), which is how nimbus learns that a
 * worker lives. Same machine, same clock: the time the worker writes can be
 * compared with the supervisor's, and the supervisor sends nimbus an age, not
 * a time, so no two machines' clocks are ever compared.
 *
 * Written as a temp file renamed over the old one, so a reader never sees half
 * a record.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

/** Loose: a later worker may add fields an older supervisor passes over. */
const localBeatSchema = z.looseObject({
  pid: z.number().int(),
  time: z.number(),
  /** Epoch of the assignment the worker follows; absent in beats of older workers (and of the fake test worker). */
  epoch: z.number().int().nonnegative().optional(),
});
export type LocalHeartbeat = z.infer<typeof localBeatSchema>;

/** Writes `{ pid, time, epoch }` (now) to `file`; returns false (never throws) when the disk refuses. */
export function writeLocalHeartbeat(file: string, now = Date.now(), pid = process.pid, epoch?: number): boolean {
  const tmp = `${file}.${pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(epoch === undefined ? { pid, time: now } : { pid, time: now, epoch }));
    renameSync(tmp, file);
    return true;
  } catch {
    return false;
  }
}

/** The last local heartbeat in `file`, or null when there is none (or it is unreadable). */
export function readLocalHeartbeat(file: string): LocalHeartbeat | null {
  try {
    const parsed = localBeatSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
