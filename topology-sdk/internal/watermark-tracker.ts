/**
 * The watermark of one windowed bolt task: the minimum over its input tasks
 * of (latest timestamp − lag), as Storm computes it — but per input *task*
 * rather than per stream (a slow task holds it back instead of having its
 * tuples made late by a faster one).
 *
 * By default (`idleTimeoutMs` null), as in Storm, it waits for the data: no
 * watermark until every input task has sent, and a task that goes silent
 * holds it where its last tuple left it, however long it pauses — so a pause
 * never makes a tuple late that is on time for its own source.
 *
 * With an idle timeout (withIdleTimeout, an opt-in), idle tasks are left out:
 *
 * - A task that sent nothing for `idleTimeoutMs` no longer holds the
 *   watermark back. In Storm one silent stream stops every window for good
 *   (tuples then time out and replay, for ever); with a fields grouping a
 *   task may never get a tuple from some upstream task at all. A task counts
 *   again from its next tuple (which is late if stamped before the watermark).
 * - Before a task has sent anything it holds the watermark back for the idle
 *   timeout after start, so a slow-starting spout does not make early tuples
 *   of the others late.
 * - When every input task is idle, the watermark follows the clock from the
 *   newest timestamp seen: event time is taken to pass as processing time
 *   does, so the last windows close and their tuples are acked instead of
 *   timing out and replaying.
 *
 * The watermark never goes back. Time comes from the caller.
 */
export interface WatermarkSettings {
  lagMs: number;
  /** null: no task is ever idle (the default). */
  idleTimeoutMs: number | null;
}

interface InputTask {
  latest: number;
  /** Clock time of its last tuple. */
  seenAt: number;
}

export class WatermarkTracker {
  private readonly tasks = new Map<number, InputTask | null>();
  private wm: number | null = null;
  private newest = -Infinity;
  private lastArrival: number;

  constructor(
    private readonly settings: WatermarkSettings,
    /** The input tasks expected to send (from the topology); others are added as they send. */
    expected: Iterable<number>,
    /** Clock time at start. */
    private readonly startedAt: number,
  ) {
    for (const t of expected) this.tasks.set(t, null);
    this.lastArrival = startedAt;
  }

  /** A tuple stamped `ts` arrived from `task` at clock time `now`. */
  track(task: number, ts: number, now: number): void {
    const t = this.tasks.get(task);
    if (t) {
      if (ts > t.latest) t.latest = ts;
      t.seenAt = now;
    } else {
      this.tasks.set(task, { latest: ts, seenAt: now });
    }
    if (ts > this.newest) this.newest = ts;
    this.lastArrival = now;
  }

  /** The watermark as of clock time `now` (null until one can be computed). */
  compute(now: number): number | null {
    const { lagMs } = this.settings;
    const idleTimeoutMs = this.settings.idleTimeoutMs ?? Infinity;
    let min = Infinity;
    let holding = false;
    for (const t of this.tasks.values()) {
      if (t === null) {
        // Never heard from: holds the watermark back (with an idle timeout, for that long after start).
        if (now - this.startedAt < idleTimeoutMs) return this.wm;
        continue;
      }
      if (now - t.seenAt >= idleTimeoutMs) continue;
      holding = true;
      if (t.latest < min) min = t.latest;
    }
    let next: number | null;
    if (holding) next = min - lagMs;
    else if (this.newest === -Infinity) next = null;
    // Every task idle (only with an idle timeout): event time goes on at the clock's pace from the newest stamp.
    else next = this.newest - lagMs + (now - this.lastArrival);
    if (next !== null && (this.wm === null || next > this.wm)) this.wm = next;
    return this.wm;
  }

  /** Input tasks sending now (not idle, heard from), of those known. */
  activeTasks(now: number): number {
    let n = 0;
    const idleTimeoutMs = this.settings.idleTimeoutMs ?? Infinity;
    for (const t of this.tasks.values()) if (t && now - t.seenAt < idleTimeoutMs) n++;
    return n;
  }

  /** Input tasks known: expected from the topology, or heard from. */
  get inputs(): number {
    return this.tasks.size;
  }

  /** The newest timestamp seen (null before any). */
  get newestTimestamp(): number | null {
    return this.newest === -Infinity ? null : this.newest;
  }
}
