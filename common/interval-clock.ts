/**
 * A time source with a periodic timer, for units whose behaviour depends on
 * time (the StreamSplit's windows, the ZooKeeper watchdog): injectable so that
 * tests step time by hand (test/helpers/manual-clock.ts) instead of sleeping.
 */
export interface IntervalClock {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. Must not keep the process alive on its own. */
  every(ms: number, fn: () => void): () => void;
}

/** Real timers and Date.now. The timer is unref'd: a background unit must never keep a process alive by itself. */
export const realIntervalClock: IntervalClock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};
