/**
 * The base classes topology authors extend, with Storm's lifecycle:
 * spouts `open` → `activate` → `nextTuple`… (`ack`/`fail` per message) →
 * `deactivate` → `close`; bolts `prepare` → `execute`… → `cleanup`.
 * Any of them may return a promise; the runtime awaits it before the next call
 * on the same task.
 */
import type { ConfigRecord } from '../common/config/config.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { TopologyContext } from './context.js';
import type { Tuple } from './tuple.js';
import type { Values } from './values.js';

export type { Values };
export type MaybePromise<T> = T | Promise<T>;

/**
 * The options form of an emit: `emit(values, { stream, anchors })` on a bolt, `emit(values, { stream, messageId })`
 * on a spout. Storm's positional forms (`emit(streamId, values)`, `emit(anchor, values)`, `emit(values, messageId)`, …)
 * are there too; topology-sdk/internal/emit-args.ts says how they are told apart.
 */
export interface EmitOptions {
  /** Stream to emit on (default: "default"). */
  stream?: string;
  /** Bolts: input tuples the new tuple is anchored to (tracked in their ack trees). */
  anchors?: Tuple | readonly Tuple[];
  /** Spouts: message id; with it the tuple is tracked and `ack`/`fail` report its fate. */
  messageId?: unknown;
}

/** What a spout emits with (Storm's SpoutOutputCollector). Every emit returns the task ids the tuple went to. */
export interface SpoutOutputCollector {
  /** `emit(values)`, or with options: `emit(values, { stream, messageId })`. */
  emit(values: Values, options?: EmitOptions): number[];
  /** Storm's `emit(values, messageId)`: tracked under `messageId` (a plain object of only stream/messageId keys reads as options: wrap it, `{ messageId }`). */
  emit(values: Values, messageId: unknown): number[];
  /** Storm's `emit(streamId, values)` and `emit(streamId, values, messageId)`. */
  emit(streamId: string, values: Values, messageId?: unknown): number[];
  /** Emits to one task of a component subscribed with direct grouping: `emitDirect(taskId, values, options?)`. */
  emitDirect(taskId: number, values: Values, options?: EmitOptions): void;
  emitDirect(taskId: number, values: Values, messageId: unknown): void;
  emitDirect(taskId: number, streamId: string, values: Values, messageId?: unknown): void;
  reportError(err: unknown): void;
}

/** What a Bolt emits, acks and fails with (Storm's OutputCollector). */
export interface OutputCollector {
  /** `emit(values)`, or with options: `emit(values, { stream, anchors })`. */
  emit(values: Values, options?: EmitOptions): number[];
  /** Storm's `emit(streamId, values)`. */
  emit(streamId: string, values: Values): number[];
  /** Storm's `emit(anchor, values)` / `emit(anchors, values)`: anchored to input tuples. */
  emit(anchors: Tuple | readonly Tuple[], values: Values): number[];
  /** Storm's `emit(streamId, anchor(s), values)`. */
  emit(streamId: string, anchors: Tuple | readonly Tuple[], values: Values): number[];
  /** Emits to one task of a component subscribed with direct grouping; the same forms after the task id. */
  emitDirect(taskId: number, values: Values, options?: EmitOptions): void;
  emitDirect(taskId: number, streamId: string, values: Values): void;
  emitDirect(taskId: number, anchors: Tuple | readonly Tuple[], values: Values): void;
  emitDirect(taskId: number, streamId: string, anchors: Tuple | readonly Tuple[], values: Values): void;
  ack(tuple: Tuple): void;
  fail(tuple: Tuple): void;
  /**
   * Storm's resetTimeout: restarts the message timeout (`topology.message.timeout.secs`) of every tuple tree `tuple`
   * belongs to, at its acker and its spout, as if the trees had been emitted now — for a bolt that holds a tuple
   * longer than the timeout on purpose (waiting on a slow service, a batch). One message per tree to its acker, and
   * one on to the spout: call it once in a while for a held tuple, not per tuple. Does nothing for an untracked tuple
   * or a tick.
   */
  resetTimeout(tuple: Tuple): void;
  reportError(err: unknown): void;
}

/**
 * The config a component is opened or prepared with: the topology's config with its component config on top (Storm's
 * `topoConf`). hstorm's keys are typed by their schema (`conf['topology.message.timeout.secs']` is a number); the
 * author's own keys are `unknown`, to be checked where they are read.
 */
export type Conf = Readonly<ConfigRecord>;

/**
 * Why a tracked message failed, the second argument of `Spout.fail` (Storm's `fail` has only the message id; a spout
 * that ignores the reason behaves as in Storm):
 * - `failed`: a bolt failed its tuple tree (`collector.fail`, or its execute threw);
 * - `timeout`: the tree did not complete within `topology.message.timeout.secs`;
 * - `unplaced`: it was emitted towards a component with no running task (unplaced by the scheduler), and failed at
 *   once instead of waiting out the timeout; `reason` is the scheduler's.
 */
export type FailReason =
  | { kind: 'failed' }
  | { kind: 'timeout'; afterMs: number }
  | { kind: 'unplaced'; component: string; stream: string; reason: string };

export abstract class Spout {
  open(_conf: Conf, _context: TopologyContext, _collector: SpoutOutputCollector): MaybePromise<void> {}
  /** Emit zero or more tuples; called again as long as the spout is active and not throttled. */
  abstract nextTuple(): MaybePromise<void>;
  ack(_messageId: unknown): void {}
  fail(_messageId: unknown, _reason?: FailReason): void {}
  activate(): void {}
  deactivate(): void {}
  close(): MaybePromise<void> {}
  abstract declareOutputFields(declarer: OutputFieldsDeclarer): void;
  /**
   * Storm's getComponentConfiguration: config this component needs (`topology.tick.tuple.freq.secs`, its own keys),
   * read once when the topology is built; `addConfiguration` on its declarer wins over it. Checked like
   * addConfiguration's keys.
   */
  getComponentConfiguration(): Record<string, unknown> | null {
    return null;
  }
}

export abstract class Bolt {
  prepare(_conf: Conf, _context: TopologyContext, _collector: OutputCollector): MaybePromise<void> {}
  /**
   * Process one tuple; ack or fail it through the collector (a throw fails it). Tick tuples come here too
   * (`TupleUtils.isTick(tuple)`); acking or failing one does nothing, anchoring to one tracks nothing.
   */
  abstract execute(tuple: Tuple): MaybePromise<void>;
  cleanup(): MaybePromise<void> {}
  declareOutputFields(_declarer: OutputFieldsDeclarer): void {}
  /**
   * Storm's getComponentConfiguration: config this component needs (`topology.tick.tuple.freq.secs`, its own keys),
   * read once when the topology is built; `addConfiguration` on its declarer wins over it. Checked like
   * addConfiguration's keys.
   */
  getComponentConfiguration(): Record<string, unknown> | null {
    return null;
  }
}

/** Emits of a BasicBolt's execute, anchored to the input tuple automatically (Storm's BasicOutputCollector). */
export interface BasicOutputCollector {
  emit(values: Values, options?: { stream?: string }): number[];
  /** Storm's `emit(streamId, values)`. */
  emit(streamId: string, values: Values): number[];
  emitDirect(taskId: number, values: Values, options?: { stream?: string }): void;
  emitDirect(taskId: number, streamId: string, values: Values): void;
  /** Storm's BasicOutputCollector.resetTimeout: as OutputCollector.resetTimeout, for the input being executed (or another). */
  resetTimeout(tuple: Tuple): void;
  /** Reports an error without failing the tuple: logged, and shown by nimbus (REST API, web UI) as the component's last error. */
  reportError(err: unknown): void;
}

/**
 * Storm's BaseBasicBolt: every emit is anchored to the input, the input is
 * acked when `execute` returns (or its promise resolves) and failed when it throws.
 */
export abstract class BasicBolt {
  prepare(_conf: Conf, _context: TopologyContext): MaybePromise<void> {}
  /** Process one tuple (tick tuples too: `TupleUtils.isTick(tuple)`; emits while handling one are not anchored). */
  abstract execute(tuple: Tuple, collector: BasicOutputCollector): MaybePromise<void>;
  cleanup(): MaybePromise<void> {}
  declareOutputFields(_declarer: OutputFieldsDeclarer): void {}
  /**
   * Storm's getComponentConfiguration: config this component needs (`topology.tick.tuple.freq.secs`, its own keys),
   * read once when the topology is built; `addConfiguration` on its declarer wins over it. Checked like
   * addConfiguration's keys.
   */
  getComponentConfiguration(): Record<string, unknown> | null {
    return null;
  }
}

export type SpoutFactory = () => Spout;
export type BoltFactory = () => Bolt | BasicBolt;
