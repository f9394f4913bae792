/**
 * How state keys and values become bytes in the state store (msgpack, with
 * the wire codec's options: bigints, typed arrays, Sets and Dates
 * round-trip), and how a key becomes a JavaScript Map key in memory: strings,
 * numbers, bigints and booleans as themselves, arrays and objects by their
 * encoding, so two equal composite keys are one entry.
 */
import { C1, Packr } from 'msgpackr';

const packr = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });

export function encodeState(v: unknown): Uint8Array {
  return packr.pack(v);
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
