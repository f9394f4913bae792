/**
 * The frame format between workers, wire version 3 (frame-layout.ts; byte by
 * byte in docs/wire-format.md): a columnar binary frame — routing header and
 * anchor ids in typed-array columns, stream names interned per frame, merged
 * ack messages as runs of uint32 words — with only the tuples' values going
 * through msgpackr, in one pack per frame. The worker writes frames from its
 * open batches (batch-builder.ts, frame-encoder.ts) and reads them in place
 * (frame-reader.ts); this module is the rows face of the same format, for
 * tools, tests and hstorm/testing's records:
 *   encodeBatch(port, rows)  writes rows as a frame's tuples. It refuses
 *     nothing: a row that is not a tuple (task ids that are not uint32, a
 *     stream that is not a string, anchors that are not pairs of 64-bit ids)
 *     is written as a tuple for no task (NO_TASK), which every receiver
 *     drops and counts — so a test can still send a peer what a broken or
 *     hostile sender would.
 *   decodeBatch(frame)  reads a frame (every check of readFrame) and returns
 *     its tuples as rows.
 * Version 3 replaced version 2's one msgpack array [2, sender, tuples]: a
 * version-2 worker fails on the first byte of a version-3 frame, and a
 * version-3 worker names the version of a version-2 frame when it refuses it.
 */
import { CodecError } from '../../common/errors.js';
import { writeHalvesOf } from '../acking/ack-ids.js';
import { BatchBuilder } from './batch-builder.js';
import { encodeFrame } from './frame-encoder.js';
import { NO_TASK } from './frame-layout.js';
import { readFrame } from './frame-reader.js';
import { valuesPackr } from './values-packr.js';
import type { WireBatch, WireTuple } from './wire-types.js';

export { WIRE_VERSION } from './frame-layout.js';
export type { WireBatch, WireTuple } from './wire-types.js';

/** Rows into one frame (see above: a row that is no tuple goes to no task). */
export function encodeBatch(senderPort: number, tuples: WireTuple[]): Buffer {
  const b = new BatchBuilder();
  for (const t of tuples) {
    const anchors = isWireTuple(t) && isTaskId(t[0]) && isTaskId(t[1]) ? anchorHalves(t[4]) : undefined;
    if (anchors !== undefined) b.addTuple(t[0], t[1], t[2], t[3], anchors);
    else b.addTuple(NO_TASK, NO_TASK, '', [], null);
  }
  return encodeFrame(senderPort, b);
}

/** A frame's tuples as rows; throws CodecError for anything that is not a well-formed frame (frame-reader.ts). */
export function decodeBatch(frame: Uint8Array): WireBatch {
  const f = readFrame(frame);
  return { senderPort: f.senderPort, tuples: f.tuples };
}

/** Shape check of one row (anchors: 64-bit ids as bigints, in pairs). */
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

function isTaskId(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x < NO_TASK;
}

/** A row's anchors as halves; undefined when an id is not a 64-bit unsigned integer. */
function anchorHalves(ids: bigint[] | null): number[] | null | undefined {
  if (ids === null) return null;
  const out = new Array<number>(ids.length * 2);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id < 0n || id >= 1n << 64n) return undefined;
    writeHalvesOf(id, out, 2 * i);
  }
  return out;
}

/**
 * One record of values in the wire format, outside a frame: what hstorm/testing writes to its capture files and
 * puts in mocked sources, so a test gets values with their real types (a Map, a Date, a registered class) back.
 * Values go in their wire form (toWireForm) where they need one, as in a frame's values column.
 */
export function encodeRecord(record: unknown): Buffer {
  return valuesPackr.pack(record);
}

export function decodeRecord(bytes: Uint8Array): unknown {
  try {
    return valuesPackr.unpack(bytes);
  } catch (err) {
    throw new CodecError(`undecodable record (${bytes.length} bytes): ${(err as Error).message}`, { cause: err });
  }
}
