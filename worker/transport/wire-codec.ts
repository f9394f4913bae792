/**
 * The frame format between workers: one msgpackr-encoded array per batch,
 *   [version = 2, senderPort, tuples]
 * with each tuple
 *   [destTask, srcTask, streamId, values, anchors | null]
 * where anchors are [root, edge, root, edge, …] as 64-bit ids (bigint). Typed
 * arrays (matrices), Sets, Dates and bigints of any size travel as such
 * (msgpackr `moreTypes`); Maps, -0 and registered classes in their wire form
 * (../values/wire-form.ts, whose msgpackr extensions this module loads).
 * Version 2 added those extensions: a version-1 worker would read a Map as an
 * object and fail on the rest, so it refuses the frame instead.
 * Decoding checks the shape so that garbage is rejected as a CodecError
 * instead of reaching an executor.
 */
import { Packr } from 'msgpackr';
import { CodecError } from '../../common/errors.js';
// For its msgpackr extensions (Map, -0, registered classes), which must be in place before any frame is coded.
import '../values/wire-form.js';

export const WIRE_VERSION = 2;

export type WireTuple = [destTask: number, srcTask: number, stream: string, values: unknown[], anchors: bigint[] | null];

export interface WireBatch {
  senderPort: number;
  tuples: WireTuple[];
}

const packr = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });

export function encodeBatch(senderPort: number, tuples: WireTuple[]): Buffer {
  return packr.pack([WIRE_VERSION, senderPort, tuples]);
}

/** Decodes a frame; throws CodecError for anything that is not a well-formed batch. */
export function decodeBatch(frame: Uint8Array): WireBatch {
  let msg: unknown;
  try {
    msg = packr.unpack(frame);
  } catch (err) {
    throw new CodecError(`undecodable frame (${frame.length} bytes): ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(msg) || msg.length !== 3) throw new CodecError('frame is not a [version, sender, tuples] batch');
  const [version, senderPort, tuples] = msg as unknown[];
  if (version !== WIRE_VERSION) throw new CodecError(`unsupported frame version ${String(version)}`);
  if (typeof senderPort !== 'number' || !Array.isArray(tuples)) throw new CodecError('malformed batch header');
  return { senderPort, tuples: tuples as WireTuple[] };
}

/** Shape check of one tuple of a decoded batch (cheap; run per tuple on receive). */
export function isWireTuple(t: unknown): t is WireTuple {
  if (!Array.isArray(t) || t.length !== 5) return false;
  const a = t[4];
  return (
    typeof t[0] === 'number' &&
    typeof t[1] === 'number' &&
    typeof t[2] === 'string' &&
    Array.isArray(t[3]) &&
    (a === null || (Array.isArray(a) && a.length % 2 === 0 && a.every((x) => typeof x === 'bigint')))
  );
}

/**
 * One record of values in the wire format, outside a frame: what hstorm/testing writes to its capture files and
 * puts in mocked sources, so a test gets values with their real types (a Map, a Date, a registered class) back.
 * Values go in their wire form (toWireForm) where they need one, as in a frame.
 */
export function encodeRecord(record: unknown): Buffer {
  return packr.pack(record);
}

export function decodeRecord(bytes: Uint8Array): unknown {
  try {
    return packr.unpack(bytes);
  } catch (err) {
    throw new CodecError(`undecodable record (${bytes.length} bytes): ${(err as Error).message}`, { cause: err });
  }
}
