/**
 * What may be emitted: the values that arrive in another worker as they left
 * (wire-form.ts makes them travel), checked at emit so that a value that
 * would not is refused there, naming it — whether the target task is in this
 * worker (no encoding at all) or another. Storm does the same with Kryo:
 * a class it cannot serialize fails the emit, not the receiver.
 *
 * Travels as it is: strings, numbers (NaN and ±Infinity too), booleans, null,
 * undefined, bigints (any size), arrays, plain objects (string keys), typed
 * arrays, Buffers, DataViews, ArrayBuffers, Dates, RegExps, Sets and built-in
 * Errors. Travels in its wire form: Maps, -0, instances of registered
 * classes and objects with an own `__proto__` key. Refused: functions, symbols (as values or keys), instances of
 * other classes, circular values, nesting deeper than MAX_DEPTH.
 *
 * The common case is the hot path: a tuple of numbers and strings costs one
 * `typeof` per value, a typed array one `ArrayBuffer.isView`.
 */
import type { SerializationRegistration } from './serialization-types.js';

/** Deeper than this, a value is refused (msgpackr recurses per level: a deep enough value overflows the stack). */
export const MAX_DEPTH = 200;

/** Why a value cannot travel: where it sits in the tuple and what it is. */
export class ValueRefusal extends Error {
  constructor(
    /** Index of the tuple field holding it. */
    readonly index: number,
    /** Where in that field's value, e.g. `.points[2].label` (empty: the field itself). */
    readonly path: string,
    /** What it is, e.g. "an instance of class Point", "a function", "a circular value". */
    readonly what: string,
    /** What to do about it. */
    readonly hint: string,
  ) {
    super(`${what}${path ? ` at ${path}` : ''}`);
  }
}

const BUILT_IN_ERRORS: ReadonlySet<object> = new Set(
  [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, typeof AggregateError === 'function' ? AggregateError : Error].map((c) => c.prototype as object),
);

/** The classes of one topology whose instances may be emitted: registered ones, by prototype. */
export class ValueTypes {
  private readonly byProto = new Map<object, SerializationRegistration>();
  readonly byName = new Map<string, SerializationRegistration>();

  constructor(readonly registrations: readonly SerializationRegistration[] = []) {
    for (const r of registrations) {
      this.byProto.set(r.Class.prototype as object, r);
      this.byName.set(r.name, r);
    }
  }

  registrationOf(value: object): SerializationRegistration | undefined {
    return this.byProto.get(Object.getPrototypeOf(value) as object);
  }
}

/** A topology with no registered class. */
export const NO_VALUE_TYPES = new ValueTypes();

/**
 * Checks the values of one emit. Returns true when some value needs its wire form to travel (a Map, -0, a
 * registered class), false when msgpackr carries every value as it is; throws a ValueRefusal for one that cannot.
 */
export function inspectValues(values: readonly unknown[], types: ValueTypes): boolean {
  // The hot path: strings and numbers (not -0) need nothing, so a tuple of them is done in this loop. `typeof x ===
  // 'string'` compiles to a type check; a switch over typeof, or a call per value, measurably does not (ns per emit).
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v === 'string' || (typeof v === 'number' && (v !== 0 || 1 / v > 0))) continue;
    return inspectFrom(values, i, types);
  }
  return false;
}

/** The rest of inspectValues, from the first value that is not a plain string or number. */
function inspectFrom(values: readonly unknown[], from: number, types: ValueTypes): boolean {
  let wire = false;
  for (let i = from; i < values.length; i++) {
    const v = values[i];
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'undefined':
      case 'bigint':
        break;
      case 'number':
        if (v === 0 && 1 / v < 0) wire = true; // msgpack writes -0 as the integer 0
        break;
      case 'object':
        if (v !== null && new Walk(types, i).object(v, 0)) wire = true;
        break;
      default:
        throw refuseAt(i, [], v);
    }
  }
  return wire;
}

/** One field's walk: the ancestors on the way down (a cycle is an ancestor met again) and the path, for messages. */
class Walk {
  private readonly ancestors: object[] = [];
  private readonly path: (string | number)[] = [];

  constructor(
    private readonly types: ValueTypes,
    private readonly index: number,
  ) {}

  /** True when `v` or something inside it needs the wire form. */
  private value(v: unknown, depth: number): boolean {
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'undefined':
      case 'bigint':
        return false;
      case 'number':
        return v === 0 && 1 / v < 0;
      case 'object':
        return v !== null && this.object(v, depth);
      default:
        throw refuseAt(this.index, this.path, v);
    }
  }

  object(v: object, depth: number): boolean {
    if (ArrayBuffer.isView(v)) return false;
    if (depth >= MAX_DEPTH) throw new ValueRefusal(this.index, pathText(this.path), `a value nested deeper than ${MAX_DEPTH} levels`, 'flatten it');
    if (this.ancestors.includes(v)) {
      throw new ValueRefusal(this.index, pathText(this.path), 'a circular value (it contains itself)', 'emit a copy without the cycle (an id in place of the reference)');
    }
    this.ancestors.push(v);
    try {
      if (Array.isArray(v)) return this.entries(v, depth);
      const proto = Object.getPrototypeOf(v) as object | null;
      if (proto === Object.prototype || proto === null) return this.plain(v, depth);
      if (v instanceof Map && proto === Map.prototype) {
        for (const [k, x] of v) {
          this.path.push('<map key>');
          this.value(k, depth + 1);
          this.path[this.path.length - 1] = typeof k === 'string' || typeof k === 'number' ? `<map ${JSON.stringify(k)}>` : '<map value>';
          this.value(x, depth + 1);
          this.path.pop();
        }
        return true;
      }
      if (v instanceof Set && proto === Set.prototype) {
        let wire = false;
        this.path.push('<set item>');
        for (const x of v) if (this.value(x, depth + 1)) wire = true;
        this.path.pop();
        return wire;
      }
      if (proto === Date.prototype || proto === RegExp.prototype || proto === ArrayBuffer.prototype) return false;
      if (BUILT_IN_ERRORS.has(proto)) return false;
      const registered = this.types.registrationOf(v);
      if (registered) {
        // Without a serializer its own fields travel: they must be able to. A serializer's output is checked when encoded.
        if (registered.serializer === null) this.plain(v, depth);
        return true;
      }
      const name = (proto as { constructor?: { name?: string } } | null)?.constructor?.name || 'an anonymous class';
      throw new ValueRefusal(
        this.index,
        pathText(this.path),
        `an instance of class ${name}, which is not registered`,
        `register it with TopologyBuilder.registerSerialization(${name}) so that it arrives as a ${name} in every worker, or emit plain data`,
      );
    } finally {
      this.ancestors.pop();
    }
  }

  private entries(list: readonly unknown[], depth: number): boolean {
    let wire = false;
    for (let i = 0; i < list.length; i++) {
      const x = list[i];
      const t = typeof x;
      // Numbers and strings, the bulk of a big array, without a call or a path entry.
      if (t === 'number') {
        if (x === 0 && 1 / x < 0) wire = true;
        continue;
      }
      if (t === 'string' || t === 'boolean' || t === 'undefined' || t === 'bigint' || x === null) continue;
      this.path.push(i);
      if (this.value(x, depth + 1)) wire = true;
      this.path.pop();
    }
    return wire;
  }

  private plain(o: object, depth: number): boolean {
    if (Object.getOwnPropertySymbols(o).length > 0) {
      throw new ValueRefusal(this.index, pathText(this.path), 'an object with symbol keys', 'use string keys: symbol keys do not travel');
    }
    // An own "__proto__" key travels boxed (wire-form.ts): msgpackr reads that key back as "__proto_".
    let wire = Object.hasOwn(o, '__proto__');
    for (const k of Object.keys(o)) {
      this.path.push(k);
      if (this.value((o as Record<string, unknown>)[k], depth + 1)) wire = true;
      this.path.pop();
    }
    return wire;
  }
}

function refuseAt(index: number, path: readonly (string | number)[], v: unknown): ValueRefusal {
  const what = typeof v === 'function' ? `a function${(v as { name?: string }).name ? ` (${(v as { name: string }).name})` : ''}` : typeof v === 'symbol' ? `a symbol (${String(v)})` : `a ${typeof v}`;
  return new ValueRefusal(index, pathText(path), what, 'emit data: functions and symbols do not travel between workers');
}

function pathText(path: readonly (string | number)[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : p.startsWith('<') ? ` ${p}` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('');
}
