/**
 * Tick tuples (Storm's `topology.tick.tuple.freq.secs`): every period a bolt
 * task gets a tuple from component `__system`, task -1, on stream `__tick`,
 * with one value, the configured period in seconds (field `rate_secs`). It is
 * queued behind the data tuples already waiting, as Storm publishes it into the
 * executor's receive queue, so a tick means "at least this long since the last
 * one", never "exactly now". A tick is never tracked: it has no ack tree, so
 * acking, failing or anchoring to it does nothing.
 */
import { SYSTEM_COMPONENT, SYSTEM_TASK_ID, TICK_STREAM } from '../../common/topology-def.js';
import { realIntervalClock, type IntervalClock } from '../../common/interval-clock.js';
import { Fields } from '../../topology-sdk/fields.js';
import { RuntimeTuple } from './runtime-tuple.js';

/** The fields of Storm's tick stream. */
export const TICK_FIELDS = new Fields(['rate_secs']);

/** A new tick tuple carrying the period `secs`. */
export function tickTuple(secs: number): RuntimeTuple {
  return new RuntimeTuple([secs], TICK_FIELDS, SYSTEM_COMPONENT, TICK_STREAM, SYSTEM_TASK_ID, null);
}

/** Whether a runtime tuple is a tick (the system task is the only source with a negative id: one number compare). */
export function isTickTuple(t: RuntimeTuple): boolean {
  return t.sourceTask === SYSTEM_TASK_ID;
}

export class TickSource {
  private stop: (() => void) | null = null;

  /** `deliver` is called with each tick; `clock` steps time (a test's manual clock, real timers by default). */
  constructor(
    private readonly tick: { secs: number; ms: number },
    private readonly deliver: (t: RuntimeTuple) => void,
    private readonly clock: IntervalClock = realIntervalClock,
  ) {}

  start(): void {
    this.stop ??= this.clock.every(this.tick.ms, () => this.deliver(tickTuple(this.tick.secs)));
  }

  close(): void {
    this.stop?.();
    this.stop = null;
  }
}
