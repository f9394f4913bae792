/**
 * When a failed queue message is emitted again: storm-kafka-client's
 * KafkaSpoutRetryExponentialBackoff, with its defaults. The first retry waits
 * `initialDelayMs` (0: at once), the n-th `delayPeriodMs × 2^(n-1)`, never more
 * than `maxDelayMs`; after `maxRetries` retries the message is given up on
 * (Storm acks it; hstorm sends it to the failure stream or drops and counts
 * it, as the spout's `onMaxRetries` says).
 */
import { z } from 'zod';

export const retryOptionsSchema = z.strictObject({
  /** Wait before the first retry (Storm: 0). */
  initialDelayMs: z.number().min(0).default(0),
  /** The ratio of the geometric progression: retry n (n ≥ 2) waits delayPeriodMs × 2^(n-1) (Storm: 2 ms). */
  delayPeriodMs: z.number().min(0).default(2),
  /** No retry waits longer than this (Storm: 10 s). */
  maxDelayMs: z.number().min(0).default(10_000),
  /** Retries before giving up; null: retry for ever (Storm's default, Integer.MAX_VALUE). */
  maxRetries: z.number().int().min(0).nullable().default(null),
});

export type RetryOptions = z.output<typeof retryOptionsSchema>;
export type RetryOptionsInput = z.input<typeof retryOptionsSchema>;

/** The wait before retry number `failCount` (1 after the first failure, 2 after the second, ...). */
export function retryDelayMs(failCount: number, options: RetryOptions): number {
  const delay = failCount <= 1 ? options.initialDelayMs : options.delayPeriodMs * 2 ** (failCount - 1);
  return Math.min(delay, options.maxDelayMs);
}

/** Whether a message that has failed `failCount` times is to be retried again. */
export function mayRetry(failCount: number, options: RetryOptions): boolean {
  return options.maxRetries === null || failCount <= options.maxRetries;
}
