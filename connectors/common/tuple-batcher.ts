/**
 * Batches for the sink and lookup bolts: tuples gather until `size` of them
 * are waiting or the oldest has waited `flushMs`, then the batch is handed to
 * `write` (one transaction, one pipeline). Up to `maxWrites` batches are
 * written at once — a batch starts beside those being written only when
 * `mayOverlap` allows it (a sink allows it for batches that share no key, so
 * a later write of a row never overtakes an earlier one) — and the next one
 * gathers meanwhile. When that one is full too, `add` returns a promise that
 * settles once it has been handed over, and the bolt's execute returns it: the
 * executor stops taking tuples (backpressure) instead of batches growing
 * without bound.
 */
import { z } from 'zod';
import { realConnectorClock, type ConnectorClock } from './connector-clock.js';

export const batchOptionsSchema = z.strictObject({
  /** Tuples per batch at most: a full batch is written at once. */
  size: z.number().int().min(1).default(500),
  /** A batch is written at the latest this long after its first tuple arrived. */
  flushMs: z.number().min(0).default(20),
});
export type BatchOptions = z.output<typeof batchOptionsSchema>;

export interface BatchWriter<T> {
  /** Writes a batch and acks or fails its tuples; a rejection is treated as handled inside (it only must settle). */
  write(batch: T[]): Promise<void>;
  /** Batches written at once at most (default 1). */
  maxWrites?: number;
  /** Whether `next` may be written while `writing` are (default: never; only asked when maxWrites > 1). */
  mayOverlap?(next: readonly T[], writing: readonly (readonly T[])[]): boolean;
}

export class TupleBatcher<T> {
  private batch: T[] = [];
  private readonly writing = new Map<Promise<void>, T[]>();
  private handedOver: (() => void)[] = [];
  private cancelTimer: (() => void) | null = null;
  /** The gathering batch's flushMs has passed: write it as soon as it may start. */
  private due = false;
  private readonly maxWrites: number;

  constructor(
    private readonly options: BatchOptions,
    private readonly writer: BatchWriter<T>,
    private readonly clock: ConnectorClock = realConnectorClock,
  ) {
    this.maxWrites = Math.max(1, writer.maxWrites ?? 1);
  }

  /** Tuples gathering for the next batch. */
  get waiting(): number {
    return this.batch.length;
  }

  add(item: T): Promise<void> | undefined {
    this.batch.push(item);
    if (this.batch.length === 1) this.armTimer();
    if (this.batch.length < this.options.size || this.tryStart()) return undefined;
    return new Promise((resolve) => this.handedOver.push(resolve));
  }

  /** Writes whatever is gathered and waits until everything handed over is written. */
  async flush(): Promise<void> {
    while (this.writing.size > 0 || this.batch.length > 0) {
      if (!this.tryStart()) await Promise.race(this.writing.keys());
    }
  }

  private armTimer(): void {
    this.due = false;
    this.cancelTimer?.();
    this.cancelTimer = this.clock.after(this.options.flushMs, () => {
      this.cancelTimer = null;
      this.due = true;
      this.tryStart();
    });
  }

  /** Starts writing the gathering batch if it may start now. */
  private tryStart(): boolean {
    if (this.batch.length === 0 || this.writing.size >= this.maxWrites) return false;
    if (this.writing.size > 0 && !(this.writer.mayOverlap?.(this.batch, [...this.writing.values()]) ?? false)) return false;
    const batch = this.batch;
    this.batch = [];
    this.due = false;
    this.cancelTimer?.();
    this.cancelTimer = null;
    const done: Promise<void> = this.writer
      .write(batch)
      .catch(() => undefined)
      .finally(() => {
        this.writing.delete(done);
        if (this.batch.length >= this.options.size || (this.due && this.batch.length > 0)) this.tryStart();
        else if (this.batch.length > 0 && this.cancelTimer === null) this.armTimer();
      });
    this.writing.set(done, batch);
    const waiters = this.handedOver;
    this.handedOver = [];
    for (const w of waiters) w();
    return true;
  }
}
