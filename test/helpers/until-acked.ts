/**
 * runLocal options for a test that sends a known number of messages: run until
 * the spouts have that many acked (read from the heartbeats about once a
 * second), at most `maxSec` — a condition instead of a fixed duration that a
 * loaded machine may not fill. The exact counts are still asserted after.
 */
import type { RunSummary } from '../../cli/run-summary.js';

export function untilAcked(messages: number, maxSec = 120): { durationSec: number; until: (s: RunSummary) => boolean } {
  return { durationSec: maxSec, until: (s) => s.acked >= messages };
}
