/**
 * Which tasks in other workers are overloaded, as their workers announced
 * (the sending half of per-task backpressure; Storm 2's
 * remoteBackPressureStatus). An executor with such a task among its targets
 * is not run (executor-transfer.ts isCongested), so what it would send that
 * task waits in its own bounded input queue — or, for a spout, is not
 * emitted yet — while every other executor's tuples, and all acks, flow.
 * A worker's status replaces its previous one; one not renewed within
 * STALE_MS (its worker died or moved) is forgotten, so no sender is held
 * for good by a status that will never be lifted.
 */
import type { IntervalClock } from '../../common/interval-clock.js';
import { RESEND_MS } from './local-overload.js';
import { decodeBackpressureStatus } from './backpressure-message.js';

/** A status older than this is dropped: several resends missed. */
export const STALE_MS = 10 * RESEND_MS;

export class RemoteOverload {
  /** Overloaded flags by task id: the congestion check reads one array slot per target. */
  private readonly flags: boolean[] = [];
  private readonly byWorker = new Map<string, { tasks: number[]; at: number }>();
  private stopTimer: (() => void) | null = null;
  statusesReceived = 0;
  /** Statuses that were not well-formed, or named tasks their sender does not hold (dropped). */
  statusesDropped = 0;
  /** Times an executor was held back because a target task in another worker was overloaded. */
  heldChecks = 0;

  /** `workerOf`: the worker holding a task in the current assignment (a status may only speak for its own tasks). */
  constructor(
    private readonly workerOf: (task: number) => string | undefined,
    private readonly clock: IntervalClock,
  ) {}

  start(): void {
    this.stopTimer = this.clock.every(RESEND_MS, () => this.expire());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /** Applies a `__backpressure` tuple's values; false when they are not a status of the tasks of the worker it names. */
  apply(values: readonly unknown[]): boolean {
    const s = decodeBackpressureStatus(values);
    if (!s || !s.overloaded.every((t) => this.workerOf(t) === s.worker)) {
      this.statusesDropped++;
      return false;
    }
    this.statusesReceived++;
    this.set(s.worker, s.overloaded);
    return true;
  }

  /** Whether `task` (in another worker) is overloaded; counts a hold when it is. */
  holds(task: number): boolean {
    if (this.flags[task] !== true) return false;
    this.heldChecks++;
    return true;
  }

  /** Tasks flagged now. */
  tasks(): number[] {
    return [...this.byWorker.values()].flatMap((w) => w.tasks);
  }

  private set(worker: string, tasks: number[]): void {
    const old = this.byWorker.get(worker);
    if (old) for (const t of old.tasks) this.flags[t] = false;
    if (tasks.length === 0) this.byWorker.delete(worker);
    else this.byWorker.set(worker, { tasks, at: this.clock.now() });
    for (const t of tasks) this.flags[t] = true;
  }

  private expire(): void {
    const now = this.clock.now();
    for (const [worker, s] of this.byWorker) if (now - s.at > STALE_MS) this.set(worker, []);
  }
}
