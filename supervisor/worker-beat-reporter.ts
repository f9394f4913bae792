/**
 * Forwards the liveness of this supervisor's workers to nimbus: every
 * `worker.heartbeat.frequency.secs` it reads each running worker's local
 * heartbeat and sends one WorkerBeatsReport (common/worker-beats-report.ts),
 * as Storm 2's supervisor does (ReportWorkerHeartbeats). One small message
 * per supervisor per period is the whole cost of liveness: no ZooKeeper write,
 * no per-worker message.
 *
 * A send still in flight when the next period comes is not doubled (the
 * period is skipped and counted): a slow nimbus gets at most one message per
 * supervisor at a time, never a queue. A failed send is logged (rate-limited)
 * and the next period tries again; nimbus judges a worker dead only after
 * `nimbus.task.timeout.secs` without news of it, so a lost message or two
 * costs nothing.
 */
import type { LocalHeartbeat } from '../common/local-heartbeat.js';
import { RateLimitedLog, type Logger } from '../common/logger.js';
import { WORKER_BEATS_TYPE, type WorkerBeat, type WorkerBeatsReport, type WorkerBeatsSink } from '../common/worker-beats-report.js';

/** A worker process this supervisor runs now. */
export interface RunningWorker {
  topologyId: string;
  port: number;
  pid: number;
}

export interface WorkerBeatReporterOptions {
  supervisorId: string;
  periodMs: number;
  /** The workers running now (started or adopted, alive). */
  running: () => readonly RunningWorker[];
  /** The local heartbeat of the worker on a port (whichever pid wrote it), or null. */
  localBeat: (port: number) => LocalHeartbeat | null;
  send: WorkerBeatsSink;
  log: Logger;
  /** The clock the local beats were written on (this machine's). */
  now?: () => number;
}

export class WorkerBeatReporter {
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private readonly warnLog: RateLimitedLog;
  /** Reports sent and answered, sends that failed, periods skipped because a send was still in flight. */
  readonly counts = { sent: 0, failed: 0, skipped: 0 };

  constructor(private readonly o: WorkerBeatReporterOptions) {
    this.warnLog = new RateLimitedLog(o.log);
  }

  start(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.o.periodMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Sends a report now unless one is still in flight; resolves when that send is done. */
  tick(): Promise<void> {
    if (this.sending) {
      this.counts.skipped++;
      return this.sending;
    }
    const report = this.report();
    this.sending = this.o
      .send(report)
      .then(() => void this.counts.sent++)
      .catch((err: unknown) => {
        this.counts.failed++;
        this.warnLog.warn({ err }, 'could not send the workers\' heartbeats to nimbus; retrying next period');
      })
      .finally(() => (this.sending = null));
    return this.sending;
  }

  /** What the supervisor would send now: every running worker whose local beat is its own. */
  report(): WorkerBeatsReport {
    const now = (this.o.now ?? Date.now)();
    const workers: WorkerBeat[] = [];
    for (const w of this.o.running()) {
      const beat = this.o.localBeat(w.port);
      // A beat from another pid is the previous worker's on this port: it says nothing about this one.
      if (!beat || beat.pid !== w.pid) continue;
      workers.push({ topologyId: w.topologyId, port: w.port, pid: w.pid, epoch: beat.epoch ?? null, ageMs: Math.max(0, now - beat.time) });
    }
    return { type: WORKER_BEATS_TYPE, version: 1, supervisorId: this.o.supervisorId, workers };
  }
}
