/**
 * Which of this worker's tasks are overloaded, announced to the peers (the
 * receiving half of per-task backpressure; Storm 2's BackPressureTracker).
 * The receiver (batch-receiver.ts) names a task overloaded when a peer's
 * tuples find its queue (`topology.executor.receive.buffer.size` tuples) full
 * while the worker keeps reading — when it stops reading instead, the peers
 * are held by their links and no status is needed. A task is relieved when
 * what waits for it, queued and parked, drops below half its queue; every
 * change is sent to every peer at once (backpressure-message.ts), and the
 * status is sent again every second while any task is overloaded, so a peer
 * that missed one (a socket replaced by an assignment change) catches up.
 * Peers hold what they would send that task (remote-overload.ts) and
 * everything else flows.
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
  /** Tuples from the network that found a task's queue full and were parked (in flight before its peers heard; counted by the receiver), and the most past its capacity at once. */
  overflowTuples = 0;
  overflowMax = 0;

  constructor(
    private readonly selfKey: string,
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

  /** `ex` took tuples from the network: notes how far past its queue's capacity they went. */
  noteOverflow(ex: Executor): void {
    const past = ex.pendingInput - ex.queue.capacity;
    if (past > this.overflowMax) this.overflowMax = past;
  }

  /** A peer's tuples found `ex` full while the worker keeps reading: notes the overflow; announces it at once when it just filled. */
  queued(ex: Executor): void {
    if (ex.pendingInput < ex.queue.capacity) return;
    this.noteOverflow(ex);
    if (this.overloaded.has(ex)) return;
    this.mark(ex);
    this.announce();
  }

  /** After each run-loop turn: tasks that drained below half their queue are relieved; announces any change. */
  update(): void {
    if (this.overloaded.size === 0) return;
    let changed = false;
    for (const ex of this.overloaded) {
      if (ex.pendingInput < ex.queue.capacity / 2) {
        this.overloaded.delete(ex);
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
