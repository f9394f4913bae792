/**
 * A worker that keeps dying at start (its module throws, a component's
 * open/prepare throws) would leave `hstorm local` — and a test on a
 * LocalCluster — waiting out its whole duration while the supervisor restarts
 * it, and then report a run with a component missing. Instead the run stops
 * as soon as nimbus sees the worker crash-looping (the supervisor's report,
 * common/resources.ts CRASH_LOOP_DEATHS), with an error that says which
 * worker, which components it runs and the last error from its log (a
 * component's start failure names the component).
 */
import { HstormError } from '../common/errors.js';
import type { TopologyDetail } from '../nimbus/views.js';

export interface CrashLoopingWorker {
  host: string;
  port: number;
  /** The components it runs, with their tasks. */
  executors: { component: string; tasks: number[] }[];
  deaths: number;
  exitCode: number | null;
  lastError: string | null;
}

/** A worker of the topology keeps dying at start: `hstorm local` exits non-zero with this. */
export class WorkerCrashLoopError extends HstormError {
  constructor(
    readonly topology: string,
    readonly workers: readonly CrashLoopingWorker[],
  ) {
    const each = workers.map(
      (w) =>
        `the worker on ${w.host}:${w.port} (running ${w.executors.map((e) => `${e.component}[${e.tasks.join(', ')}]`).join(', ') || 'nothing'}) ` +
        `died ${w.deaths} times at start${w.exitCode === null ? '' : `, exit code ${w.exitCode}`}; last error: ${w.lastError ?? 'none in its log'}`,
    );
    super('HSTORM_ERR_LOCAL_CRASH_LOOP', `topology "${topology}" stopped: ${each.join('; ')}`);
  }
}

/** The crash-looping workers of a topology as nimbus describes it; null when none is. */
export function crashLoopOf(detail: TopologyDetail): WorkerCrashLoopError | null {
  if (!detail.crashLooping) return null;
  const workers = detail.workers
    .filter((w) => w.exits?.crashLooping)
    .map((w) => ({ host: w.host, port: w.port, executors: w.executors, deaths: w.exits!.deaths, exitCode: w.exits!.lastExit.code, lastError: w.exits!.lastError }));
  return workers.length === 0 ? null : new WorkerCrashLoopError(detail.name, workers);
}
