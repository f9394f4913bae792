/**
 * Batches for the sink and lookup bolts: tuples gather until `size` of them
 * are waiting or the oldest has waited `flushMs`, then the batch is handed to
 * `write` (one transaction, one pipeline). One batch is written at a time and
 * the next gathers meanwhile; when that one is full too, `add` returns a
 * promise that settles once it has been handed over, and the bolt's execute
 * returns it — so the executor stops taking tuples (backpressure) instead of
 * the batches growing without bound.
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

export class TupleBatcher<T> {
  private batch: T[] = [];
  private writing: Promise<void> | null = null;
  private cancelTimer: (() => void) | null = null;
  /** The gathering batch's flushMs has passed: write it as soon as the one being written is done. */
  private due = false;

  constructor(
    private readonly options: BatchOptions,
    /** Writes a batch and acks or fails its tuples; a rejection is treated as handled inside (it only must settle). */
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly clock: ConnectorClock = realConnectorClock,
  ) {}

  /** Tuples waiting, in the batch being written and the one gathering. */
  get waiting(): number {
    return this.batch.length;
  }

  add(item: T): Promise<void> | undefined {
    this.batch.push(item);
    if (this.batch.length === 1) this.armTimer();
    if (this.batch.length < this.options.size) return undefined;
    if (this.writing === null) {
      this.startWrite();
      return undefined;
    }
    // Settles after the batch being written is done, and so after this full one has been handed over (startWrite's finally runs first).
    return this.writing;
  }

  /** Writes whatever is gathered (after the batch being written) and waits until everything handed over is written. */
  async flush(): Promise<void> {
    while (this.writing !== null || this.batch.length > 0) {
      if (this.writing === null) this.startWrite();
      await this.writing;
    }
  }

  private armTimer(): void {
    this.due = false;
    this.cancelTimer?.();
    this.cancelTimer = this.clock.after(this.options.flushMs, () => {
      this.cancelTimer = null;
      this.due = true;
      if (this.writing === null && this.batch.length > 0) this.startWrite();
    });
  }

  private startWrite(): void {
    const batch = this.batch;
    this.batch = [];
    this.due = false;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.writing = this.write(batch)
      .catch(() => undefined)
      .finally(() => {
        this.writing = null;
        if (this.batch.length >= this.options.size || (this.due && this.batch.length > 0)) this.startWrite();
        else if (this.batch.length > 0 && this.cancelTimer === null) this.armTimer();
      });
  }
}
