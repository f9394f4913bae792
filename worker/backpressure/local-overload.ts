/**
 * Which of this worker's tasks are overloaded, announced to the peers (the
 * receiving half of per-task backpressure; Storm 2's BackPressureTracker).
 * A task is overloaded once its queue holds `topology.executor.receive.buffer.size`
 * tuples and relieved when it drains below half of that; every change is sent
 * to every peer at once (backpressure-message.ts), and the status is sent
 * again every second while any task is overloaded, so a peer that missed one
 * (a socket replaced by an assignment change) catches up. The worker never
 * stops reading its link because one task is full: peers hold what they would
 * send that task (remote-overload.ts) and everything else flows.
 */
import type { IntervalClock } from '../../common/interval-clock.js';
import type { WireTuple } from '../transport/wire-codec.js';
import type { Executor } from '../executor/executor.js';
import { encodeBackpressureStatus } from './backpressure-message.js';

/** How often the status is sent again while a task is overloaded (and once after the last is relieved). */
export const RESEND_MS = 1000;

export class LocalOverload {
  private readonly overloaded = new Set<Executor>();
  private stopTimer: (() => void) | null = null;
  /** A status went out since the last timer tick (no need to repeat it yet). */
  private sentRecently = false;
  /** The last status named no task and was sent again once already. */
  private quiet = true;
  /** Times a task became overloaded. */
  overloadEvents = 0;
  statusesSent = 0;
  /** Tuples from the network queued at a task past its queue's capacity (in flight before its peers heard; counted by the receiver), and the most at once. */
  overflowTuples = 0;
  overflowMax = 0;

  constructor(
    private readonly selfKey: string,
    private readonly executors: readonly Executor[],
    private readonly broadcast: (status: WireTuple) => void,
  ) {}

  /** Starts the periodic resend. */
  start(clock: IntervalClock): void {
    this.stopTimer = clock.every(RESEND_MS, () => this.tick());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /** Tasks overloaded now. */
  tasks(): number[] {
    return [...this.overloaded].map((e) => e.task);
  }

  isOverloaded(ex: Executor): boolean {
    return this.overloaded.has(ex);
  }

  /** `ex` just took tuples from the network: notes how far past its capacity it went; announces it at once when it just filled. */
  queued(ex: Executor): void {
    const { length, capacity } = ex.queue;
    if (length < capacity) return;
    if (length - capacity > this.overflowMax) this.overflowMax = length - capacity;
    if (this.overloaded.has(ex)) return;
    this.mark(ex);
    this.announce();
  }

  /** After each run-loop turn: tasks that filled (their local producers too) or drained; announces any change. */
  update(): void {
    let changed = false;
    for (const ex of this.executors) {
      if (!ex.takesTuples) continue;
      const { length, capacity } = ex.queue;
      if (this.overloaded.has(ex)) {
        if (length < capacity / 2) {
          this.overloaded.delete(ex);
          changed = true;
        }
      } else if (length >= capacity) {
        this.mark(ex);
        changed = true;
      }
    }
    if (changed) this.announce();
  }

  private mark(ex: Executor): void {
    this.overloaded.add(ex);
    this.overloadEvents++;
  }

  private announce(): void {
    this.broadcast(encodeBackpressureStatus({ worker: this.selfKey, overloaded: this.tasks() }));
    this.statusesSent++;
    this.sentRecently = true;
    this.quiet = false;
  }

  private tick(): void {
    if (this.sentRecently) {
      this.sentRecently = false;
      return;
    }
    if (this.overloaded.size > 0) this.announce();
    else if (!this.quiet) {
      // Relief once more: a peer that missed it would otherwise hold its tuples until the status went stale.
      this.announce();
      this.quiet = true;
    }
    this.sentRecently = false;
  }
}
