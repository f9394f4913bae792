/**
 * JoinBolt's field names (Storm's JoinBolt.FieldSelector): `"field"`,
 * `"stream:field"` and nested `"outer.inner"` (`"stream:outer.inner"`), how
 * one is read from a tuple, and how join keys compare.
 *
 * - A name's stream, when given, is the stream (or source component) the
 *   value must come from, compared ignoring case as Storm does; without one
 *   the first tuple of the joined record that has the field gives it.
 * - A nested name reads each level from a Map or a plain object (Storm: a
 *   `Map`); a missing level is null; any other value in the way throws,
 *   naming the path (Storm's ClassCastException fails the window too).
 * - The output field name is the name as written, trimmed (`"ageSpout:id"`).
 */
import type { Tuple } from '../tuple.js';
import { JoinValidationError } from '../../common/errors.js';
import type { Fields } from '../fields.js';

export class FieldSelector {
  /** The stream (or component) qualifier; null when not given. */
  readonly stream: string | null;
  /** The path: top-level field, then nested keys. */
  readonly path: readonly string[];
  /** The declared output field name (Storm's outputName). */
  readonly outputName: string;
  // The position of the top-level field in the last Fields seen: tuples of one stream share their Fields object.
  private lastFields: Fields | null = null;
  private lastIndex = -1;

  constructor(stream: string | null, path: readonly string[], outputName: string) {
    this.stream = stream;
    this.path = path;
    this.outputName = outputName;
  }

  /**
   * Storm's `new FieldSelector("stream:x.y")`: a name in select(). `where` names the call for the error. Parts are
   * trimmed (Storm trims the name but not a qualified field, so `"s: x"` would look for `" x"` there).
   */
  static parse(descriptor: string, where: string): FieldSelector {
    const text = descriptor.trim();
    const colon = text.indexOf(':');
    const stream = colon > 0 ? text.slice(0, colon).trim() : null;
    // Storm: a leading ':' means no stream.
    const field = (colon >= 0 ? text.slice(colon + 1) : text).trim();
    const path = field.split('.').map((p) => p.trim());
    if (field === '' || path.some((p) => p === '') || (stream !== null && stream === '')) {
      throw new JoinValidationError(`${where}: "${descriptor}" is not a field name ("field", "stream:field" or nested "stream:outer.inner")`);
    }
    if (path.some((p) => p.includes(':'))) throw new JoinValidationError(`${where}: "${descriptor}" has more than one stream qualifier ':'`);
    const outputName = stream === null ? field : `${stream}:${field}`;
    return new FieldSelector(stream, path, outputName);
  }

  /** Storm's `new FieldSelector(stream, "x.y")`: a join field, whose stream is implicit (a ':' in it is refused). */
  static ofStream(stream: string, field: string, where: string): FieldSelector {
    if (typeof field !== 'string' || field.includes(':')) {
      throw new JoinValidationError(`${where}: not expecting a stream qualifier ':' in "${String(field)}"; stream "${stream}" is implicit there`);
    }
    const f = FieldSelector.parse(field, where);
    return new FieldSelector(stream, f.path, f.outputName);
  }

  /**
   * The value at this selector in `tuple` (Storm's lookupField less the stream check, which the caller does by
   * slot): null when the tuple lacks the field or a level is missing.
   */
  read(tuple: Tuple): unknown {
    const fields = tuple.fields;
    if (fields !== this.lastFields) {
      this.lastFields = fields;
      this.lastIndex = fields.indexOf(this.path[0]!);
    }
    if (this.lastIndex < 0) return null;
    let v: unknown = tuple.values[this.lastIndex];
    for (let i = 1; i < this.path.length; i++) {
      if (v === null || v === undefined) return null;
      const key = this.path[i]!;
      if (v instanceof Map) v = (v as Map<unknown, unknown>).get(key);
      else if (typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)) v = Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
      else {
        throw new TypeError(
          `JoinBolt: field "${this.outputName}" reads "${this.path.slice(0, i).join('.')}" as a Map or object, but in a tuple from "${tuple.sourceComponent}" stream "${tuple.sourceStreamId}" it is ${describe(v)}`,
        );
      }
    }
    return v ?? null;
  }
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return 'binary';
  return `a ${typeof v} (${String(v).slice(0, 40)})`;
}

/**
 * Join keys grouped as Java's `equals` groups them, where a JavaScript Map would compare objects by identity: strings,
 * numbers, booleans and bigints by value (a bigint within ±2^53 equals the number: hstorm reads longs as numbers);
 * a Date by its time; arrays, plain objects, Maps, Sets and binary values by their content. Keys that are null or
 * missing never match (Storm's join skips them).
 */
export class KeyGroups<T> {
  private readonly plain = new Map<unknown, T[]>();
  private readonly composite = new Map<string, T[]>();

  add(key: unknown, item: T): void {
    const k = normal(key);
    const map = typeof k === 'string' && key !== k ? this.composite : this.plain;
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }

  get(key: unknown): readonly T[] | undefined {
    const k = normal(key);
    return typeof k === 'string' && key !== k ? this.composite.get(k) : this.plain.get(k);
  }
}

/** A key as a Map key: a primitive as it is (a safe bigint as its number), anything else as a canonical string. */
function normal(key: unknown): unknown {
  switch (typeof key) {
    case 'string':
    case 'number':
    case 'boolean':
      return key;
    case 'bigint':
      return key >= BigInt(Number.MIN_SAFE_INTEGER) && key <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(key) : key;
    default:
      return canonical(key, 0);
  }
}

function canonical(v: unknown, depth: number): string {
  if (depth > 64) throw new TypeError('JoinBolt: a join key nested deeper than 64 levels');
  if (v === null || v === undefined) return 'n';
  switch (typeof v) {
    case 'string':
      return `s${JSON.stringify(v)}`;
    case 'number':
      return `d${Object.is(v, -0) ? 0 : v}`;
    case 'boolean':
      return v ? 't' : 'f';
    case 'bigint':
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? `d${Number(v)}` : `b${v}`;
    default:
  }
  if (v instanceof Date) return `D${v.getTime()}`;
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (ArrayBuffer.isView(v)) return `B${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}`;
  if (v instanceof Map) {
    const entries = [...v].map(([k, x]) => `${canonical(k, depth + 1)}:${canonical(x, depth + 1)}`).sort();
    return `M{${entries.join(',')}}`;
  }
  if (v instanceof Set) return `S{${[...v].map((x) => canonical(x, depth + 1)).sort().join(',')}}`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const entries = Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`);
    const ctor = Object.getPrototypeOf(o) as { constructor?: { name?: string } } | null;
    const name = ctor && ctor !== Object.prototype ? (ctor.constructor?.name ?? '') : '';
    return `O${name}{${entries.join(',')}}`;
  }
  throw new TypeError(`JoinBolt: a ${typeof v} cannot be a join key`);
}
