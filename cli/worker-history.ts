/**
 * Every incarnation of every worker of one `hstorm local` run, for its
 * summary. A worker's counters start again at zero when the supervisor
 * restarts it after a crash, and its heartbeat record then holds only the new
 * process's: summed as they are, a run with a kill -9 reports the restarted
 * worker's counts alone. So each heartbeat read is kept by worker slot and
 * process: when a slot's pid changes, the old process's last heartbeat stays
 * in the sums (its counts up to that beat: what it did after it, it took with
 * it), and nimbus's account of the slot's deaths — how many, the last exit
 * code or signal, the last error — says which worker crashed.
 */
import type { WorkerHeartbeat } from '../common/storm-base.js';
import type { TopologyDetail } from '../nimbus/views.js';

/** A worker slot that died during the run (and was restarted by its supervisor). */
export interface WorkerCrash {
  host: string;
  port: number;
  /** The components it runs. */
  components: string[];
  deaths: number;
  lastExit: { code: number | null; signal: string | null };
  /** The newest error in its log before it died, if it wrote one. */
  lastError: string | null;
}

export class WorkerHistory {
  /** The latest heartbeat of the process now in each slot (host:port). */
  private readonly current = new Map<string, WorkerHeartbeat>();
  /** The last heartbeat of each process that is gone, oldest first. */
  private readonly gone: WorkerHeartbeat[] = [];
  private readonly crashes = new Map<string, WorkerCrash>();

  /** Takes a round of heartbeats (the latest of each worker slot). */
  observe(beats: readonly WorkerHeartbeat[]): void {
    for (const b of beats) {
      const key = `${b.host}:${b.port}`;
      const before = this.current.get(key);
      if (before && before.pid !== b.pid) this.gone.push(before);
      if (!before || before.pid !== b.pid || b.time >= before.time) this.current.set(key, b);
    }
  }

  /** The latest heartbeat of each worker running now (or last seen). */
  running(): WorkerHeartbeat[] {
    return [...this.current.values()];
  }

  /** The last heartbeat of each worker process that died or was replaced during the run, oldest first. */
  departed(): WorkerHeartbeat[] {
    return [...this.gone];
  }

  /** Takes nimbus's view of the topology: which worker slots died, how, and what they run. */
  noteExits(detail: TopologyDetail): void {
    for (const w of detail.workers) {
      if (!w.exits || w.exits.deaths === 0) continue;
      this.crashes.set(`${w.host}:${w.port}`, {
        host: w.host,
        port: w.port,
        components: w.executors.map((e) => e.component),
        deaths: w.exits.deaths,
        lastExit: { code: w.exits.lastExit.code, signal: w.exits.lastExit.signal },
        lastError: w.exits.lastError,
      });
    }
  }

  /** Worker slots that died during the run, as nimbus last described them. */
  workerCrashes(): WorkerCrash[] {
    return [...this.crashes.values()];
  }
}
