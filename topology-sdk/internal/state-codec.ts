/**
 * How state keys and values become bytes in the state store, and how a key
 * becomes a JavaScript Map key in memory.
 *
 * Values go through the same value codec as tuples between workers
 * (common/values/): a `Map` comes back a Map, -0 stays -0, an instance of a
 * class registered with `registerSerialization` comes back an instance of it
 * (with the process's registrations: a worker's topology's), `Set`, `Date`,
 * bigints and typed arrays as msgpackr carries them. A value that could not
 * travel in a tuple cannot be saved either (`checkStateValue`, at `put`).
 * Bytes written before values took the codec (plain msgpack) decode as they
 * did: the codec's extensions only add types that plain msgpack never wrote.
 *
 * Keys — and the runtime's own bookkeeping (the checkpoint spout's
 * transaction, window progress) — stay plain msgpack, so that a key's bytes,
 * its name in Redis, never change: strings, numbers, bigints and booleans as
 * themselves, arrays and objects by their encoding, so two equal composite
 * keys are one entry.
 */
import { C1, Packr } from 'msgpackr';
import { inspectValues } from '../../common/values/value-types.js';
import { processValueTypes, toWireForm } from '../../common/values/wire-form.js';

const packr = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });

/** Plain msgpack: keys and the runtime's bookkeeping. */
export function encodeState(v: unknown): Uint8Array {
  return packr.pack(v);
}

/**
 * A value of a bolt's state, in the values' wire form where it needs one. Throws the ValueRefusal of a value that
 * cannot be saved (a function, an unregistered class, …); callers name the key.
 */
export function encodeStateValue(v: unknown): Uint8Array {
  const types = processValueTypes();
  return packr.pack(inspectValues([v], types) ? toWireForm([v], types)[0] : v);
}

/** Throws the ValueRefusal of a value a state cannot save (checked at put, so the bolt hears of it where it put it). */
export function checkStateValue(v: unknown): void {
  inspectValues([v], processValueTypes());
}

/** Decodes bytes the codec wrote; throws for bytes it did not (garbage, a cut-off value, trailing bytes). */
export function decodeState(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new Error('empty value');
  const v: unknown = packr.unpack(bytes);
  // msgpackr reads the byte msgpack never uses (0xc1) alone as a marker object instead of failing: it is garbage here.
  if (v === C1) throw new Error('0xc1 is not a msgpack value');
  return v;
}

/** Prefix of map keys that are not the key itself: \u0001o + encoding for objects, \u0001s + the string for strings starting with \u0001. */
const ESC = '\u0001';

/** The Map key of a state key; throws a TypeError for keys a state cannot hold. */
export function mapKey(key: unknown): unknown {
  switch (typeof key) {
    case 'string':
      return key.startsWith(ESC) ? `${ESC}s${key}` : key;
    case 'number':
    case 'bigint':
    case 'boolean':
      return key;
    case 'object':
      if (key !== null) return `${ESC}o${Buffer.from(encodeState(key)).toString('latin1')}`;
      break;
    default:
      break;
  }
  throw new TypeError(`a state key must be a string, number, bigint, boolean, array or plain object, got ${key === null ? 'null' : typeof key}`);
}
