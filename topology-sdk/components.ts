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

export type Values = unknown[];
export type MaybePromise<T> = T | Promise<T>;

export interface EmitOptions {
  /** Stream to emit on (default: "default"). */
  stream?: string;
  /** Bolts: input tuples the new tuple is anchored to (tracked in their ack trees). */
  anchors?: Tuple | readonly Tuple[];
  /** Spouts: message id; with it the tuple is tracked and `ack`/`fail` report its fate. */
  messageId?: unknown;
}

export interface SpoutOutputCollector {
  /** Emits a tuple; returns the task ids it was sent to. */
  emit(values: Values, options?: EmitOptions): number[];
  /** Emits to one task of a component subscribed with direct grouping. */
  emitDirect(taskId: number, values: Values, options?: EmitOptions): void;
  reportError(err: unknown): void;
}

export interface OutputCollector extends SpoutOutputCollector {
  ack(tuple: Tuple): void;
  fail(tuple: Tuple): void;
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
}

export abstract class Bolt {
  prepare(_conf: Conf, _context: TopologyContext, _collector: OutputCollector): MaybePromise<void> {}
  /** Process one tuple; ack or fail it through the collector (a throw fails it). */
  abstract execute(tuple: Tuple): MaybePromise<void>;
  cleanup(): MaybePromise<void> {}
  declareOutputFields(_declarer: OutputFieldsDeclarer): void {}
}

/** Emits of a BasicBolt's execute, anchored to the input tuple automatically. */
export interface BasicOutputCollector {
  emit(values: Values, options?: { stream?: string }): number[];
  emitDirect(taskId: number, values: Values, options?: { stream?: string }): void;
  /** Reports an error without failing the tuple: logged, and shown by nimbus (REST API, web UI) as the component's last error. */
  reportError(err: unknown): void;
}

/**
 * Storm's BaseBasicBolt: every emit is anchored to the input, the input is
 * acked when `execute` returns (or its promise resolves) and failed when it throws.
 */
export abstract class BasicBolt {
  prepare(_conf: Conf, _context: TopologyContext): MaybePromise<void> {}
  abstract execute(tuple: Tuple, collector: BasicOutputCollector): MaybePromise<void>;
  cleanup(): MaybePromise<void> {}
  declareOutputFields(_declarer: OutputFieldsDeclarer): void {}
}

export type SpoutFactory = () => Spout;
export type BoltFactory = () => Bolt | BasicBolt;
