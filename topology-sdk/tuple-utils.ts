/**
 * Storm's TupleUtils and Constants: recognising tick tuples and asking for them.
 *
 * @example
 * execute(t: Tuple) {
 *   if (TupleUtils.isTick(t)) return this.emitCounts(); // every topology.tick.tuple.freq.secs
 *   this.count(t);
 * }
 * override getComponentConfiguration() {
 *   return TupleUtils.putTickFrequencyIntoComponentConfig({}, 5);
 * }
 */
import { SYSTEM_COMPONENT, SYSTEM_TASK_ID, TICK_STREAM } from '../common/topology-def.js';
import type { Tuple } from './tuple.js';

/** Storm's Constants, the names a tick tuple carries. */
export const Constants = Object.freeze({
  SYSTEM_COMPONENT_ID: SYSTEM_COMPONENT,
  SYSTEM_TASK_ID,
  SYSTEM_TICK_STREAM_ID: TICK_STREAM,
});

export const TupleUtils = Object.freeze({
  /** A tick tuple: from component `__system` on stream `__tick`. */
  isTick(tuple: Tuple | null | undefined): boolean {
    return tuple != null && tuple.sourceComponent === SYSTEM_COMPONENT && tuple.sourceStreamId === TICK_STREAM;
  },
  /** Sets `topology.tick.tuple.freq.secs` in a component config (made when null) when `secs` > 0; returns the config. */
  putTickFrequencyIntoComponentConfig(conf: Record<string, unknown> | null | undefined, secs: number): Record<string, unknown> {
    const out = conf ?? {};
    if (secs > 0) out['topology.tick.tuple.freq.secs'] = secs;
    return out;
  },
});
