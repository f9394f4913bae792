/**
 * The wire form of the values msgpackr would not carry as they are
 * (value-types.ts says which): a Map (msgpack has maps, but msgpackr reads
 * them back as plain objects, string keys and all), -0 (msgpack's integer 0),
 * instances of registered classes (written as plain objects, their
 * prototype lost) and objects with an own `__proto__` key (msgpackr renames
 * it `__proto_` when it reads a map, so that no decode can set a prototype). `toWireForm` copies a tuple's values with each of those
 * replaced by a box, and the msgpackr extensions installed here turn each box
 * back into what it stood for while a frame is decoded, so a receiver gets a
 * Map, -0, or a Point with its methods.
 *
 * Extension types 0x4d ('M'), 0x5a ('Z'), 0x55 ('U') and 0x50 ('P') are hstorm's; msgpackr's
 * own (moreTypes: Set, Error, RegExp, typed arrays, bigints…) use others.
 * msgpackr's extensions are per process and its decoder passes them no
 * context, so the classes a decode rebuilds are the process's: a worker's
 * topology's (registerValueTypes, once), or for one decode the ones given to
 * decodingWith (a test process that runs several topologies). The state codec
 * (topology-sdk/internal/state-codec.ts) encodes with the same classes
 * (processValueTypes), so what a checkpoint saves comes back as it was put.
 */
import { addExtension } from 'msgpackr';
import { inspectValues, NO_VALUE_TYPES, ValueRefusal, type ValueTypes } from './value-types.js';

export const MAP_EXT = 0x4d;
export const NEG_ZERO_EXT = 0x5a;
export const CLASS_EXT = 0x55;
export const PROTO_KEY_EXT = 0x50;

/** A Map on the wire: its entries, each key and value in wire form. */
class MapBox {
  constructor(readonly entries: [unknown, unknown][]) {}
}

/** -0 on the wire. */
class NegZero {}
const NEG_ZERO = new NegZero();

/** An instance of a registered class on the wire: the name it was registered under and its data in wire form. */
class ClassBox {
  constructor(
    readonly name: string,
    readonly data: unknown,
  ) {}
}

/**
 * A plain object with an own `__proto__` key on the wire: its entries, in order, each value in wire form. Read back
 * with defineProperty, which makes an own property and never calls the `__proto__` setter (no prototype is set).
 */
class ProtoKeyBox {
  constructor(readonly entries: [string, unknown][]) {}
}

/** The classes of this process (registerValueTypes), or for one call those of decodingWith. */
let current: ValueTypes = NO_VALUE_TYPES;

/** Lets this process decode instances of `types`' classes (a worker: its topology's), and the state codec encode them. */
export function registerValueTypes(types: ValueTypes): void {
  current = types;
}

/** The classes this process encodes and decodes with (what registerValueTypes installed; none before). */
export function processValueTypes(): ValueTypes {
  return current;
}

/** Runs a synchronous decode (or state encode) with `types`' classes (hstorm/testing reading what one topology wrote). */
export function decodingWith<T>(types: ValueTypes, decode: () => T): T {
  const before = current;
  current = types;
  try {
    return decode();
  } finally {
    current = before;
  }
}

/** The class a value of this name was registered as. */
function rebuild(name: unknown, data: unknown): unknown {
  const r = typeof name === 'string' ? current.byName.get(name) : undefined;
  if (!r) throw new Error(`a value of class "${String(name)}" arrived, which this topology does not register (registerSerialization)`);
  if (r.serializer) return r.serializer.read(data);
  // Its fields as own properties: Object.assign would run the `__proto__` setter for a field of that name.
  const instance = Object.create(r.Class.prototype as object) as object;
  if (typeof data === 'object' && data !== null) Object.defineProperties(instance, Object.getOwnPropertyDescriptors(data));
  return instance;
}

function readProtoKeyed(entries: unknown): Record<string, unknown> {
  if (!Array.isArray(entries)) throw new Error('an object with a __proto__ key arrived without its entries');
  const o: Record<string, unknown> = {};
  for (const e of entries as unknown[]) {
    if (!Array.isArray(e) || typeof e[0] !== 'string') throw new Error('an object with a __proto__ key arrived with an entry that is not [key, value]');
    Object.defineProperty(o, e[0], { value: e[1] as unknown, enumerable: true, writable: true, configurable: true });
  }
  return o;
}

addExtension({ Class: MapBox, type: MAP_EXT, write: (m: MapBox) => m.entries, read: (entries: [unknown, unknown][]) => new Map(entries) });
addExtension({ Class: NegZero, type: NEG_ZERO_EXT, write: () => 0, read: () => -0 });
addExtension({ Class: ClassBox, type: CLASS_EXT, write: (b: ClassBox) => [b.name, b.data], read: ([name, data]: [unknown, unknown]) => rebuild(name, data) });
addExtension({ Class: ProtoKeyBox, type: PROTO_KEY_EXT, write: (b: ProtoKeyBox) => b.entries, read: (entries: unknown) => readProtoKeyed(entries) });

/**
 * A copy of `values` that msgpackr carries faithfully (for a tuple inspectValues said needs it). A registered class's
 * serializer runs here, at emit: its output is checked like any value, so a serializer that returns what cannot
 * travel fails the emit (a ValueRefusal at the field), in this worker as in another.
 */
export function toWireForm(values: readonly unknown[], types: ValueTypes): unknown[] {
  const out = new Array<unknown>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = wire(values[i], types, i);
  return out;
}

function wire(v: unknown, types: ValueTypes, index: number): unknown {
  if (typeof v === 'number') return v === 0 && 1 / v < 0 ? NEG_ZERO : v;
  if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map((x) => wire(x, types, index));
  if (v instanceof Map) return new MapBox([...v].map(([k, x]) => [wire(k, types, index), wire(x, types, index)]));
  if (v instanceof Set) return new Set([...v].map((x) => wire(x, types, index)));
  const proto = Object.getPrototypeOf(v) as object | null;
  if (proto === Object.prototype || proto === null) return plain(v, types, index);
  const r = types.registrationOf(v);
  if (!r) return v; // Date, RegExp, Error, ArrayBuffer: msgpackr's own
  if (r.serializer === null) return new ClassBox(r.name, plain(v, types, index));
  let data: unknown;
  try {
    data = r.serializer.write(v);
  } catch (err) {
    throw new ValueRefusal(index, '', `an instance of class ${r.name} whose serializer's write threw (${(err as Error)?.message ?? String(err)})`, 'fix the serializer given to registerSerialization');
  }
  try {
    inspectValues([data], types);
  } catch (err) {
    if (!(err instanceof ValueRefusal)) throw err;
    throw new ValueRefusal(index, err.path, `an instance of class ${r.name} whose serializer wrote ${err.what}`, err.hint);
  }
  return new ClassBox(r.name, wire(data, types, index));
}

function plain(o: object, types: ValueTypes, index: number): Record<string, unknown> | ProtoKeyBox {
  const keys = Object.keys(o);
  // `out[k] = …` with k "__proto__" would set out's prototype, and msgpackr would read the key back as "__proto_".
  if (Object.hasOwn(o, '__proto__')) return new ProtoKeyBox(keys.map((k) => [k, wire((o as Record<string, unknown>)[k], types, index)]));
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = wire((o as Record<string, unknown>)[k], types, index);
  return out;
}
