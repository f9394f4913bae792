/**
 * A worker's heartbeat on its own machine's disk, for its supervisor (as
 * Storm's supervisor reads worker heartbeats from local disk). The supervisor
 * judges whether a worker is hung from this file alone, so a ZooKeeper outage
 * — which stops the heartbeats nimbus reads, not the worker — never makes a
 * supervisor restart a healthy worker. Same machine, same clock: the time the
 * worker writes can be compared with the supervisor's.
 *
 * Written as a temp file renamed over the old one, so a reader never sees half
 * a record.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const localBeatSchema = z.object({ pid: z.number().int(), time: z.number() });
export type LocalHeartbeat = z.infer<typeof localBeatSchema>;

/** Writes `{ pid, time }` (now) to `file`; returns false (never throws) when the disk refuses. */
export function writeLocalHeartbeat(file: string, now = Date.now(), pid = process.pid): boolean {
  const tmp = `${file}.${pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ pid, time: now }));
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
