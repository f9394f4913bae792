/**
 * Where each part of a frame lies (the format, byte by byte: docs/wire-format.md).
 * A frame is a fixed header, then the batch's columns — typed arrays the
 * reader views in place, each starting on a 4-byte boundary — then the
 * stream-name table, then the tuples' values as one msgpack array. Every
 * number is little-endian.
 *
 *   header   48 bytes: magic 0xc1, version, u16 tree time (frame-tree-time.ts), then
 *            u32 sender port, T tuples, A anchor pairs, G ack runs, W ack
 *            words, S stream names, N stream-table bytes, V values bytes,
 *            then the sender's stamp (frame-stamp.ts): assignment epoch,
 *            topology tag, worker tag
 *   tuples   dest u32 × T, src u32 × T, anchors i32 × T (pairs; -1 untracked),
 *            stream u16 × T (index into the names), zero padding to 4
 *   ids      u32 × 4A: per anchor pair root low, root high, edge low, edge high
 *   acks     dest u32 × G, src u32 × G, kind u32 × G, count u32 × G, then the
 *            runs' words u32 × W (a run: count × ackArity(kind) words)
 *   names    S × (u16 byte length, UTF-8 bytes), zero padding to 4
 *   values   V bytes: msgpack array of the T tuples' values arrays
 */
import { endianness } from 'node:os';

/** 0xc1 is the one byte msgpack never uses: a worker of wire version 2 or older, which reads frames as msgpack, refuses this one at its first byte. */
export const MAGIC = 0xc1;
/** Version 3: the columnar frame. Version 2 was one msgpack array [2, sender, tuples]. */
export const WIRE_VERSION = 3;
export const HEADER_BYTES = 48;
/** A task id no task has: what the row encoder writes for a row that is no tuple, so that every receiver drops it. */
export const NO_TASK = 0xffffffff;
/** Anchor count of a tuple that is not tracked. */
export const UNTRACKED = -1;
/** The first byte of a version 1–2 frame (a msgpack array of three), to name its version when one arrives. */
export const MSGPACK_FRAME = 0x93;

/** Header fields, as indexes of its u32 words (word 0 holds magic, version and the reserved bytes). */
export const H_PORT = 1;
export const H_TUPLES = 2;
export const H_ANCHORS = 3;
export const H_RUNS = 4;
export const H_ACK_WORDS = 5;
export const H_STREAMS = 6;
export const H_NAME_BYTES = 7;
export const H_VALUES_BYTES = 8;
/** The sender's stamp (frame-stamp.ts). */
export const H_EPOCH = 9;
export const H_TOPOLOGY = 10;
export const H_WORKER = 11;

/** Rounds up to a multiple of 4 in plain arithmetic: a bitwise form would wrap past 2^31, and a corrupt header's counts go that far. */
export function pad4(n: number): number {
  return n + ((4 - (n % 4)) % 4);
}

/** Byte offsets of the sections of a frame with these counts (the same arithmetic for writer and reader). */
export interface Sections {
  dest: number;
  src: number;
  anchors: number;
  stream: number;
  ids: number;
  ackDest: number;
  ackSrc: number;
  ackKind: number;
  ackCount: number;
  ackWords: number;
  names: number;
  values: number;
  /** The whole frame's length. */
  end: number;
}

export function sections(t: number, a: number, g: number, w: number, nameBytes: number, valueBytes: number): Sections {
  const dest = HEADER_BYTES;
  const src = dest + 4 * t;
  const anchors = src + 4 * t;
  const stream = anchors + 4 * t;
  const ids = pad4(stream + 2 * t);
  const ackDest = ids + 16 * a;
  const ackSrc = ackDest + 4 * g;
  const ackKind = ackSrc + 4 * g;
  const ackCount = ackKind + 4 * g;
  const ackWords = ackCount + 4 * g;
  const names = ackWords + 4 * w;
  const values = pad4(names + nameBytes);
  return { dest, src, anchors, stream, ids, ackDest, ackSrc, ackKind, ackCount, ackWords, names, values, end: values + valueBytes };
}

// The columns are typed arrays over the frame's bytes, which read the machine's byte order: the format's is little-endian.
if (endianness() !== 'LE') throw new Error('hstorm workers need a little-endian CPU: the wire format is little-endian and read in place');
