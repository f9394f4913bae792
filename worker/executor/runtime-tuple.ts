/**
 * The runtime's tuple: the read-only Tuple a bolt sees (topology-sdk/tuple.ts)
 * plus the ack bookkeeping only executors touch (`anchors`, `ackLo`/`ackHi`). Kept
 * out of the SDK's exports so that a topology can neither build one nor
 * corrupt its ack ids; executors receive these and narrow the Tuple a bolt
 * hands back (collector.ack/fail, emit anchors) to this class.
 */
import type { Fields } from '../../topology-sdk/fields.js';
import type { MessageId, Tuple } from '../../topology-sdk/tuple.js';
import { TupleFieldError, TupleValueError } from '../errors.js';
import { SYSTEM_COMPONENT, SYSTEM_TASK_ID, TICK_STREAM } from '../../common/topology-def.js';
import { idOfHalves } from '../acking/ack-ids.js';

/**
 * Ack-tree ids this tuple carries, each 64-bit id as its uint32 halves (acking/ack-ids.ts): per anchor four words,
 * [root low, root high, edge low, edge high, …]; null when the tuple is not tracked.
 */
export type AnchorIds = number[] | null;

function describeValue(v: unknown): string {
  try {
    const text = typeof v === 'bigint' ? `${v}n` : JSON.stringify(v);
    return text === undefined ? '' : text.length > 60 ? `${text.slice(0, 60)}…` : text;
  } catch {
    return '';
  }
}

export class RuntimeTuple implements Tuple {
  /** XOR of the edge ids of tuples anchored to this one (runtime bookkeeping), low and high half. */
  ackLo = 0;
  ackHi = 0;

  constructor(
    readonly values: readonly unknown[],
    readonly fields: Fields,
    readonly sourceComponent: string,
    readonly sourceStreamId: string,
    readonly sourceTask: number,
    readonly anchors: AnchorIds,
  ) {}

  // ── Storm's Tuple API (org.apache.storm.tuple.Tuple) ──────────────────────
  // Typed getters check the value's type and throw a TypeError (TupleValueError) naming
  // the field and what it holds, as Storm's casts would (ClassCastException): a bolt
  // reading the wrong field fails on the spot, not three bolts later.

  /** Number of values (Storm's `size()`). */
  size(): number {
    return this.values.length;
  }

  getValue(i: number): unknown {
    return this.values[i];
  }

  /** Value of a field by name; throws for a field the stream does not declare. */
  getValueByField(name: string): unknown {
    return this.values[this.fieldIndex(name)];
  }

  /** The values, in the order of the declared fields. */
  getValues(): readonly unknown[] {
    return this.values;
  }

  /** The fields the source declared on this stream. */
  getFields(): Fields {
    return this.fields;
  }

  /** Position of a field; throws for a field the stream does not declare. */
  fieldIndex(name: string): number {
    const i = this.fields.indexOf(name);
    if (i < 0) throw new TupleFieldError(name, this.sourceComponent, this.sourceStreamId, this.fields.names);
    return i;
  }

  /** The values of `fields`, in that order (Storm's `select`). */
  select(fields: Fields | readonly string[]): unknown[] {
    const names = fields instanceof Array ? fields : (fields as Fields).names;
    return names.map((n) => this.getValueByField(n));
  }

  contains(name: string): boolean {
    return this.fields.has(name);
  }

  getSourceComponent(): string {
    return this.sourceComponent;
  }

  getSourceStreamId(): string {
    return this.sourceStreamId;
  }

  getSourceTask(): number {
    return this.sourceTask;
  }

  /** The ack-tree ids this tuple carries (root id → edge id), empty when it is not tracked: Storm's MessageId. */
  getMessageId(): MessageId {
    const anchorsToIds = new Map<bigint, bigint>();
    const a = this.anchors ?? [];
    for (let i = 0; i + 3 < a.length; i += 4) anchorsToIds.set(idOfHalves(a[i]!, a[i + 1]!), idOfHalves(a[i + 2]!, a[i + 3]!));
    return { anchorsToIds };
  }

  /** A string; other values are converted with String() (numbers read from text stay usable). */
  getString(i: number): string {
    return String(this.values[i]);
  }

  getStringByField(name: string): string {
    return this.getString(this.fieldIndex(name));
  }

  /** A whole number (Storm's Integer); throws for anything else. */
  getInteger(i: number): number {
    const v = this.values[i];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    throw this.wrongType(i, 'an integer');
  }

  getIntegerByField(name: string): number {
    return this.getInteger(this.fieldIndex(name));
  }

  /** A whole number (Storm's Long): a safe-integer number or a bigint within the safe range, as a number. */
  getLong(i: number): number {
    const v = this.values[i];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
    throw this.wrongType(i, 'a long (a whole number within ±2^53)');
  }

  getLongByField(name: string): number {
    return this.getLong(this.fieldIndex(name));
  }

  getShort(i: number): number {
    return this.getInteger(i);
  }

  getShortByField(name: string): number {
    return this.getInteger(this.fieldIndex(name));
  }

  getByte(i: number): number {
    return this.getInteger(i);
  }

  getByteByField(name: string): number {
    return this.getInteger(this.fieldIndex(name));
  }

  /** A number (Storm's Double); throws for anything else. */
  getDouble(i: number): number {
    const v = this.values[i];
    if (typeof v === 'number') return v;
    throw this.wrongType(i, 'a number');
  }

  getDoubleByField(name: string): number {
    return this.getDouble(this.fieldIndex(name));
  }

  getFloat(i: number): number {
    return this.getDouble(i);
  }

  getFloatByField(name: string): number {
    return this.getDouble(this.fieldIndex(name));
  }

  getBoolean(i: number): boolean {
    const v = this.values[i];
    if (typeof v === 'boolean') return v;
    throw this.wrongType(i, 'a boolean');
  }

  getBooleanByField(name: string): boolean {
    return this.getBoolean(this.fieldIndex(name));
  }

  /** Bytes (Storm's byte[]): a Uint8Array (msgpack's binary; a Buffer is one). */
  getBinary(i: number): Uint8Array {
    const v = this.values[i];
    if (v instanceof Uint8Array) return v;
    throw this.wrongType(i, 'bytes (a Uint8Array)');
  }

  getBinaryByField(name: string): Uint8Array {
    return this.getBinary(this.fieldIndex(name));
  }

  /** Any value converted with Number() (hstorm's own, before the Storm names). */
  getNumberByField(name: string): number {
    return Number(this.getValueByField(name));
  }

  private wrongType(i: number, wanted: string): TupleValueError {
    const v = this.values[i];
    const field = this.fields.names[i];
    const what = i >= this.values.length ? `no value (the tuple has ${this.values.length})` : `${typeof v === 'object' ? (v === null ? 'null' : (v.constructor?.name ?? 'an object')) : typeof v} ${describeValue(v)}`;
    return new TupleValueError(
      `value ${i}${field ? ` ("${field}")` : ''} of a tuple from "${this.sourceComponent}" stream "${this.sourceStreamId}" is not ${wanted}: it is ${what}`,
      i,
      this.sourceComponent,
      this.sourceStreamId,
    );
  }

  /** A tick tuple (from `__system` on `__tick`; Storm's TupleUtils.isTick). */
  isTick(): boolean {
    return this.sourceTask === SYSTEM_TASK_ID && this.sourceStreamId === TICK_STREAM && this.sourceComponent === SYSTEM_COMPONENT;
  }

  /** Field name → value, for logging and tests. */
  toObject(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.fields.names.forEach((n, i) => (o[n] = this.values[i]));
    return o;
  }

  toString(): string {
    return `source: ${this.sourceComponent}:${this.sourceTask}, stream: ${this.sourceStreamId}, ${JSON.stringify(this.values, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
  }
}
