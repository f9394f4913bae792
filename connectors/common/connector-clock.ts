/**
 * The time source of the connectors' timers (retry back-off, reconnect
 * back-off, batch flush): injectable so that tests step time by hand
 * (test/helpers/manual-clock.ts) instead of sleeping.
 */
export interface ConnectorClock {
  now(): number;
  /** Calls `fn` once after `ms`, unless the returned function is called first. Must not keep the process alive. */
  after(ms: number, fn: () => void): () => void;
}

/** Real timers and performance.now(); timers are unref'd, as a component's background work must never hold a process open. */
export const realConnectorClock: ConnectorClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
