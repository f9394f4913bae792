/**
 * A batch (batch-builder.ts) into one frame (frame-layout.ts): the columns
 * copied as they are, the stream names written once, and the values of all
 * its tuples packed by msgpackr in one call — one pack per batch, not per
 * tuple, which measured faster (docs/benchmarks.md, "Acking, fourth round:
 * the wire"). Throws what msgpackr throws for a value it cannot encode.
 */
import type { BatchBuilder } from './batch-builder.js';
import { ackArity } from '../acking/ack-messages.js';
import { H_ANCHORS, H_EPOCH, H_NAME_BYTES, H_PORT, H_RUNS, H_STREAMS, H_TOPOLOGY, H_TUPLES, H_ACK_WORDS, H_VALUES_BYTES, H_WORKER, MAGIC, WIRE_VERSION, sections } from './frame-layout.js';
import { UNSTAMPED, type FrameStamp } from './frame-stamp.js';
import { treeTimeField } from './frame-tree-time.js';
import { valuesPackr } from './values-packr.js';

/** `stamp`: who sends it (frame-stamp.ts); tools and tests may leave it unstamped. */
export function encodeFrame(senderPort: number, b: BatchBuilder, stamp: Readonly<FrameStamp> = UNSTAMPED): Buffer {
  const t = b.tuples;
  const values = valuesPackr.pack(b.values);
  let nameBytes = 0;
  for (const s of b.streams) nameBytes += 2 + Buffer.byteLength(s, 'utf8');
  let ackWords = 0;
  for (const r of b.runs) ackWords += r.words.length;
  const g = b.runs.length;
  const at = sections(t, b.idWords >> 2, g, ackWords, nameBytes, values.length);
  // The u32 columns below are written through views, which need a 4-byte aligned start: Node's pool hands out
  // 8-byte aligned slices (a small frame), a bigger one gets its own buffer at offset 0.
  let frame = Buffer.allocUnsafe(at.end);
  if ((frame.byteOffset & 3) !== 0) frame = Buffer.allocUnsafeSlow(at.end);
  const u32 = new Uint32Array(frame.buffer, frame.byteOffset, at.end >> 2);
  const base = frame.byteOffset;
  // Little-endian: byte 0 the magic, byte 1 the version, bytes 2–3 the tree time.
  u32[0] = (MAGIC | (WIRE_VERSION << 8) | (treeTimeField(b.newestTreeStart) << 16)) >>> 0;
  u32[H_PORT] = senderPort;
  u32[H_TUPLES] = t;
  u32[H_ANCHORS] = b.idWords >> 2;
  u32[H_RUNS] = g;
  u32[H_ACK_WORDS] = ackWords;
  u32[H_STREAMS] = b.streams.length;
  u32[H_NAME_BYTES] = nameBytes;
  u32[H_VALUES_BYTES] = values.length;
  u32[H_EPOCH] = stamp.epoch;
  u32[H_TOPOLOGY] = stamp.topology;
  u32[H_WORKER] = stamp.worker;
  u32.set(b.dest.subarray(0, t), at.dest >> 2);
  u32.set(b.src.subarray(0, t), at.src >> 2);
  new Int32Array(frame.buffer, base + at.anchors, t).set(b.anchors.subarray(0, t));
  new Uint16Array(frame.buffer, base + at.stream, t).set(b.stream.subarray(0, t));
  frame.fill(0, at.stream + 2 * t, at.ids); // padding
  u32.set(b.ids.subarray(0, b.idWords), at.ids >> 2);
  let w = at.ackWords >> 2;
  for (let i = 0; i < g; i++) {
    const r = b.runs[i]!;
    u32[(at.ackDest >> 2) + i] = r.dest;
    u32[(at.ackSrc >> 2) + i] = r.src;
    u32[(at.ackKind >> 2) + i] = r.kind;
    u32[(at.ackCount >> 2) + i] = r.words.length / ackArity(r.kind);
    const words = r.words;
    for (let k = 0; k < words.length; k++) u32[w++] = words[k]!;
  }
  let o = at.names;
  for (const s of b.streams) {
    const n = frame.write(s, o + 2, 'utf8');
    frame.writeUInt16LE(n, o);
    o += 2 + n;
  }
  frame.fill(0, o, at.values); // padding
  frame.set(values, at.values);
  return frame;
}
