/**
 * Reads a frame (frame-layout.ts) in place: the columns become typed-array
 * views over the received bytes — no object and no BigInt per id — and only
 * the values go through msgpackr, in one unpack. Everything is checked before
 * a receiver sees it: magic and version, a length that matches the header to
 * the byte (a frame cut anywhere, in any column, is refused), every stream
 * index inside the name table, anchor counts and ack runs adding up to what
 * the header says, and a values array with one entry per tuple. Anything else
 * is a CodecError: the transport counts and drops the frame.
 */
import { CodecError } from '../../common/errors.js';
import { ackArity } from '../acking/ack-messages.js';
import { idOfHalves } from '../acking/ack-ids.js';
import { HEADER_BYTES, H_ACK_WORDS, H_ANCHORS, H_EPOCH, H_NAME_BYTES, H_PORT, H_RUNS, H_STREAMS, H_TOPOLOGY, H_TUPLES, H_VALUES_BYTES, H_WORKER, MAGIC, MSGPACK_FRAME, WIRE_VERSION, sections } from './frame-layout.js';
import { valuesPackr } from './values-packr.js';
import type { WireBatch, WireTuple } from './wire-types.js';
import type { FrameStamp } from './frame-stamp.js';

/** A decoded frame: its columns (views over the frame's bytes), stream names and values. */
export class Frame implements WireBatch {
  constructor(
    readonly senderPort: number,
    /** Who sent it: epoch, topology and worker tags (frame-stamp.ts); any values, checked by the receiver's fence. */
    readonly stamp: Readonly<FrameStamp>,
    /** How old its trees are: the header's tree-time field (frame-tree-time.ts; treeTimeOf reads it), 0 for none. */
    readonly treeTime: number,
    /** Data tuples: the length of the tuple columns. */
    readonly tupleCount: number,
    readonly dest: Uint32Array,
    readonly src: Uint32Array,
    /** Anchor pairs per tuple; -1: untracked. */
    readonly anchors: Int32Array,
    /** Index into `streams` per tuple. */
    readonly stream: Uint16Array,
    /** The tuples' anchor ids in order, four words per pair (root low, root high, edge low, edge high). */
    readonly ids: Uint32Array,
    readonly streams: readonly string[],
    /** The values section: unpacked now (an array, one entry per tuple), or its bytes when the reader deferred it. */
    private valuesOrBytes: readonly unknown[] | Buffer,
    readonly ackDest: Uint32Array,
    readonly ackSrc: Uint32Array,
    readonly ackKind: Uint32Array,
    /** Messages per run. */
    readonly ackCount: Uint32Array,
    /** The runs' words back to back. */
    readonly ackWords: Uint32Array,
  ) {}

  /**
   * Each tuple's values: an array for a well-formed tuple (a receiver drops any other). A frame read with its values
   * deferred unpacks them here, the first time they are asked for, and throws CodecError if they are not well-formed.
   */
  get values(): readonly unknown[] {
    if (Buffer.isBuffer(this.valuesOrBytes)) this.valuesOrBytes = unpackValues(this.valuesOrBytes, this.tupleCount);
    return this.valuesOrBytes as readonly unknown[];
  }

  /** Whether the values are still bytes (read deferred, not asked for yet). */
  get valuesDeferred(): boolean {
    return Buffer.isBuffer(this.valuesOrBytes);
  }

  /** Ack-protocol messages in all runs. */
  get ackMessages(): number {
    let n = 0;
    for (let i = 0; i < this.ackCount.length; i++) n += this.ackCount[i]!;
    return n;
  }

  /** The data tuples as rows, anchors as bigints (tools and tests; a receiver reads the columns). */
  get tuples(): WireTuple[] {
    const rows: WireTuple[] = [];
    let w = 0;
    for (let i = 0; i < this.tupleCount; i++) {
      const pairs = this.anchors[i]!;
      let anchors: bigint[] | null = null;
      if (pairs >= 0) {
        anchors = [];
        for (let k = 0; k < pairs; k++, w += 4) anchors.push(idOfHalves(this.ids[w]!, this.ids[w + 1]!), idOfHalves(this.ids[w + 2]!, this.ids[w + 3]!));
      }
      rows.push([this.dest[i]!, this.src[i]!, this.streams[this.stream[i]!]!, this.values[i] as unknown[], anchors]);
    }
    return rows;
  }
}

/**
 * Decodes a frame; throws CodecError for anything that is not a well-formed frame of this wire version. With
 * `deferValues`, everything but the values section is read and checked now and the values are unpacked when first
 * asked for (Frame.values, which throws CodecError then): a worker that parks a frame behind a full task
 * (worker/backpressure/parked-tuples.ts) keeps its values as bytes, not as objects the garbage collector must walk.
 */
export function readFrame(input: Uint8Array, deferValues = false): Frame {
  const len = input.length;
  if (len === 0) throw new CodecError('empty frame');
  if (input[0] !== MAGIC) {
    // The frame of wire versions 1 and 2 was a msgpack array [version, sender, tuples]: name its version.
    if (input[0] === MSGPACK_FRAME && len > 1 && input[1]! < 0x80) throw new CodecError(`unsupported frame version ${input[1]} (a msgpack frame, as hstorm workers before wire version ${WIRE_VERSION} send)`);
    throw new CodecError(`not an hstorm frame: first byte 0x${input[0]!.toString(16).padStart(2, '0')}, not 0x${MAGIC.toString(16)}`);
  }
  if (len < 2 || input[1] !== WIRE_VERSION) throw new CodecError(`unsupported frame version ${String(input[1])}`);
  if (len < HEADER_BYTES) throw new CodecError(`frame of ${len} bytes is shorter than its ${HEADER_BYTES}-byte header`);
  // The columns are read through views, which need a 4-byte aligned start: a frame that is not is copied first.
  let bytes = input;
  if ((input.byteOffset & 3) !== 0) {
    bytes = new Uint8Array(len);
    bytes.set(input);
  }
  const ab = bytes.buffer;
  const base = bytes.byteOffset;
  const h = new Uint32Array(ab, base, HEADER_BYTES >> 2);
  const t = h[H_TUPLES]!;
  const a = h[H_ANCHORS]!;
  const g = h[H_RUNS]!;
  const w = h[H_ACK_WORDS]!;
  const s = h[H_STREAMS]!;
  const at = sections(t, a, g, w, h[H_NAME_BYTES]!, h[H_VALUES_BYTES]!);
  if (at.end !== len) throw new CodecError(`frame of ${len} bytes, but its header describes ${at.end}: truncated or corrupt`);

  const anchors = new Int32Array(ab, base + at.anchors, t);
  const stream = new Uint16Array(ab, base + at.stream, t);
  let pairs = 0;
  for (let i = 0; i < t; i++) {
    const k = anchors[i]!;
    if (k < -1) throw new CodecError(`malformed frame: tuple ${i} has ${k} anchors`);
    if (k > 0) pairs += k;
    if (stream[i]! >= s) throw new CodecError(`malformed frame: tuple ${i} names stream ${stream[i]} of ${s}`);
  }
  if (pairs !== a) throw new CodecError(`malformed frame: its tuples have ${pairs} anchor pairs, its header says ${a}`);
  const ackKind = new Uint32Array(ab, base + at.ackKind, g);
  const ackCount = new Uint32Array(ab, base + at.ackCount, g);
  let words = 0;
  for (let i = 0; i < g; i++) {
    const arity = ackArity(ackKind[i]!);
    if (arity === 0) throw new CodecError(`malformed frame: ack run ${i} is of kind ${ackKind[i]}, which is none`);
    words += ackCount[i]! * arity;
  }
  if (words !== w) throw new CodecError(`malformed frame: its ack runs hold ${words} words, its header says ${w}`);

  const buf = Buffer.from(ab, base, len);
  const streams = readNames(buf, at.names, at.names + h[H_NAME_BYTES]!, s);
  const valuesBytes = buf.subarray(at.values, at.end);
  const values = deferValues ? valuesBytes : unpackValues(valuesBytes, t);
  return new Frame(
    h[H_PORT]!,
    { epoch: h[H_EPOCH]!, topology: h[H_TOPOLOGY]!, worker: h[H_WORKER]! },
    h[0]! >>> 16,
    t,
    new Uint32Array(ab, base + at.dest, t),
    new Uint32Array(ab, base + at.src, t),
    anchors,
    stream,
    new Uint32Array(ab, base + at.ids, 4 * a),
    streams,
    values,
    new Uint32Array(ab, base + at.ackDest, g),
    new Uint32Array(ab, base + at.ackSrc, g),
    ackKind,
    ackCount,
    new Uint32Array(ab, base + at.ackWords, w),
  );
}

/** The values section: one msgpack array of `t` entries. */
function unpackValues(bytes: Buffer, t: number): unknown[] {
  let values: unknown;
  try {
    values = valuesPackr.unpack(bytes);
  } catch (err) {
    throw new CodecError(`undecodable values column (${bytes.length} bytes): ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(values) || values.length !== t) throw new CodecError(`malformed frame: its values column is not an array of ${t} tuples' values`);
  return values;
}

/** The stream-name table: `count` names, each a u16 byte length and UTF-8, filling [from, to) exactly. */
function readNames(buf: Buffer, from: number, to: number, count: number): string[] {
  const names = new Array<string>(count);
  let o = from;
  for (let i = 0; i < count; i++) {
    if (o + 2 > to) throw new CodecError(`malformed frame: its stream table ends inside name ${i} of ${count}`);
    const n = buf.readUInt16LE(o);
    o += 2;
    if (o + n > to) throw new CodecError(`malformed frame: its stream table ends inside name ${i} of ${count}`);
    names[i] = buf.toString('utf8', o, o + n);
    o += n;
  }
  if (o !== to) throw new CodecError(`malformed frame: its stream table has ${to - from} bytes, its names ${o - from}`);
  return names;
}
