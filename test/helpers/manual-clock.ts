/**
 * A clock that moves only when a test says so, for units that take one
 * (StreamSplit's `clock`, the connectors' ConnectorClock): `advance(ms)` fires
 * every periodic or one-shot callback that
 * falls due, in time order, and after each lets pending setImmediate and
 * promise work run (signal deliveries, async window closes), so a test counts
 * exactly the windows it stepped through, however loaded the machine is.
 */
import type { SplitClock } from '../../topology-sdk/stream-split.js';

interface Periodic {
  /** 0: a one-shot timer (`after`), stopped once it has fired. */
  every: number;
  due: number;
  fn: () => void;
  stopped: boolean;
}

/** Lets everything queued on setImmediate (and the promise jobs it starts) run, a few rounds deep. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

export class ManualClock implements SplitClock {
  private t: number;
  private readonly timers: Periodic[] = [];

  constructor(start = 1_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  every(ms: number, fn: () => void): () => void {
    if (!(ms > 0)) throw new RangeError(`period must be > 0, got ${ms}`);
    const p: Periodic = { every: ms, due: this.t + ms, fn, stopped: false };
    this.timers.push(p);
    return () => {
      p.stopped = true;
    };
  }

  /** Calls `fn` once, `ms` from now (the connectors' ConnectorClock). */
  after(ms: number, fn: () => void): () => void {
    const p: Periodic = { every: 0, due: this.t + Math.max(0, ms), fn, stopped: false };
    this.timers.push(p);
    return () => {
      p.stopped = true;
    };
  }

  /** Timers not yet fired or stopped (one-shot and periodic). */
  get pendingTimers(): number {
    return this.timers.filter((p) => !p.stopped).length;
  }

  /** Moves time forward by `ms`, firing what falls due on the way (a timer due exactly at the end fires). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((p) => !p.stopped && p.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.t = next.due;
      if (next.every === 0) next.stopped = true;
      else next.due += next.every;
      next.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}
