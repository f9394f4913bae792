/**
 * A tuple as a bolt sees it: its values, read by position or by field name,
 * and where it came from. Read-only on purpose: the ack bookkeeping a tuple
 * carries is the runtime's (worker/executor/runtime-tuple.ts implements this), so
 * nothing here lets a topology construct a tuple or touch its ack ids.
 */
import type { Fields } from './fields.js';

/** Storm's MessageId: the ack trees a tuple belongs to (root id → this tuple's edge id in it). */
export interface MessageId {
  anchorsToIds: ReadonlyMap<bigint, bigint>;
}

/**
 * Storm's Tuple API (org.apache.storm.tuple.Tuple). The typed getters check
 * the value's type and throw a TypeError naming the field and what it holds,
 * as Storm's casts would (ClassCastException): a bolt reading the wrong field
 * fails on the spot, not three bolts later.
 */
export interface Tuple {
  readonly values: readonly unknown[];
  readonly fields: Fields;
  readonly sourceComponent: string;
  readonly sourceStreamId: string;
  readonly sourceTask: number;

  /** Number of values (Storm's `size()`). */
  size(): number;
  getValue(i: number): unknown;
  /** Value of a field by name; throws for a field the stream does not declare. */
  getValueByField(name: string): unknown;
  /** The values, in the order of the declared fields. */
  getValues(): readonly unknown[];
  /** The fields the source declared on this stream. */
  getFields(): Fields;
  /** Position of a field; throws for a field the stream does not declare. */
  fieldIndex(name: string): number;
  /** The values of `fields`, in that order (Storm's `select`). */
  select(fields: Fields | readonly string[]): unknown[];
  contains(name: string): boolean;
  getSourceComponent(): string;
  getSourceStreamId(): string;
  getSourceTask(): number;
  /** The ack-tree ids this tuple carries (root id → edge id), empty when it is not tracked: Storm's MessageId. A copy: changing it changes nothing. */
  getMessageId(): MessageId;
  /** A string; other values are converted with String() (numbers read from text stay usable). */
  getString(i: number): string;
  getStringByField(name: string): string;
  /** A whole number (Storm's Integer); throws for anything else. */
  getInteger(i: number): number;
  getIntegerByField(name: string): number;
  /** A whole number (Storm's Long): a safe-integer number or a bigint within the safe range, as a number. */
  getLong(i: number): number;
  getLongByField(name: string): number;
  getShort(i: number): number;
  getShortByField(name: string): number;
  getByte(i: number): number;
  getByteByField(name: string): number;
  /** A number (Storm's Double); throws for anything else. */
  getDouble(i: number): number;
  getDoubleByField(name: string): number;
  getFloat(i: number): number;
  getFloatByField(name: string): number;
  getBoolean(i: number): boolean;
  getBooleanByField(name: string): boolean;
  /** Bytes (Storm's byte[]): a Uint8Array (msgpack's binary; a Buffer is one). */
  getBinary(i: number): Uint8Array;
  getBinaryByField(name: string): Uint8Array;
  /** Any value converted with Number() (hstorm's own, before the Storm names). */
  getNumberByField(name: string): number;
  /** A tick tuple (from `__system` on `__tick`; Storm's TupleUtils.isTick). */
  isTick(): boolean;
  /** Field name → value, for logging and tests. */
  toObject(): Record<string, unknown>;
  toString(): string;
}
