/**
 * The columnar frame of wire version 3 (docs/wire-format.md): what the batch
 * builder gathers comes out of the reader unchanged, every section lies where
 * the layout says, and a frame cut or shortened in any column — the header's
 * counts left as they were, or rewritten to agree with the shorter frame — is
 * refused as a CodecError, never read wrong or thrown as anything else.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NO_TREE_TIME, msOfTreeStart, treeStartFromField, treeStartOf, treeTimeField } from '../../../worker/transport/frame-tree-time.js';
import { ACK_FILL, BatchBuilder } from '../../../worker/transport/batch-builder.js';
import { encodeFrame } from '../../../worker/transport/frame-encoder.js';
import { readFrame, type Frame } from '../../../worker/transport/frame-reader.js';
import { HEADER_BYTES, H_ACK_WORDS, H_ANCHORS, H_NAME_BYTES, H_RUNS, H_TOPOLOGY, H_TUPLES, H_VALUES_BYTES, H_WORKER, sections, type Sections } from '../../../worker/transport/frame-layout.js';
import { ACK, ACKED, FAIL, FAILED, INIT, ackArity, type AckKind } from '../../../worker/acking/ack-messages.js';
import { valuesPackr } from '../../../worker/transport/values-packr.js';
import { CodecError } from '../../../common/errors.js';

const isCodecError = (e: unknown): boolean => e instanceof CodecError && e.code === 'HSTORM_ERR_CODEC_DECODE';

/** A batch with something in every column: tuples tracked (one and two pairs) and not, two streams, runs of every kind. */
function fullBatch(): BatchBuilder {
  const b = new BatchBuilder();
  b.addTuple(7, 3, 'default', ['a', 1], [1, 2, 3, 4]);
  b.addTuple(8, 3, 'side', [new Float32Array([1.5, -2]), null], null);
  b.addTuple(7, 4, 'default', [{ k: [true] }], [0xffffffff, 0x80000000, 5, 6, 7, 8, 9, 10]);
  b.addTuple(9, 4, 'dëfault ✓', [], []);
  b.addAck(20, 3, INIT, 11, 12, 13, 14);
  b.addAck(20, 7, ACK, 15, 16, 17, 18);
  b.addAck(20, 7, ACK, 19, 20, 21, 22);
  b.addAck(20, 7, FAIL, 23, 24, 0, 0);
  b.addAcks(3, 20, ACKED, Uint32Array.of(25, 26, 27, 28));
  b.addAck(3, 20, FAILED, 29, 30, 0, 0);
  return b;
}

function runsOf(f: Frame): { dest: number; src: number; kind: number; words: number[] }[] {
  let w = 0;
  return Array.from(f.ackDest, (dest, g) => {
    const n = f.ackCount[g]! * ackArity(f.ackKind[g]!);
    const words = Array.from(f.ackWords.subarray(w, w + n));
    w += n;
    return { dest, src: f.ackSrc[g]!, kind: f.ackKind[g]!, words };
  });
}

/** The section each byte range of a frame belongs to, in order (empty ones left out). */
function columnsOf(at: Sections, f: Buffer): [string, number, number][] {
  const order: [keyof Sections, keyof Sections | 'end'][] = [
    ['dest', 'src'],
    ['src', 'anchors'],
    ['anchors', 'stream'],
    ['stream', 'ids'],
    ['ids', 'ackDest'],
    ['ackDest', 'ackSrc'],
    ['ackSrc', 'ackKind'],
    ['ackKind', 'ackCount'],
    ['ackCount', 'ackWords'],
    ['ackWords', 'names'],
    ['names', 'values'],
    ['values', 'end'],
  ];
  return order.map(([a, b]): [string, number, number] => [a, at[a], b === 'end' ? f.length : at[b]]).filter(([, from, to]) => to > from);
}

function sectionsOf(frame: Buffer): Sections {
  const h = new DataView(frame.buffer, frame.byteOffset, HEADER_BYTES);
  const u = (i: number) => h.getUint32(4 * i, true);
  return sections(u(H_TUPLES), u(H_ANCHORS), u(H_RUNS), u(H_ACK_WORDS), u(H_NAME_BYTES), u(H_VALUES_BYTES));
}

/** `frame` without bytes [from, to), header word `word` set to `value`: a column shorter than it was, the header agreeing. */
function shortened(frame: Buffer, from: number, to: number, word: number, value: number): Buffer {
  const out = Buffer.concat([frame.subarray(0, from), frame.subarray(to)]);
  out.writeUInt32LE(value, 4 * word);
  return out;
}

describe('worker/transport frame (wire version 3)', () => {
  it("carries the tree time of the batch's youngest tracked tuple in header bytes 2–3, untracked tuples aside", () => {
    const b = new BatchBuilder();
    const t0 = 1_764_110_000_250;
    b.addTuple(7, 3, 'default', ['old'], [1, 2, 3, 4], treeStartOf(t0 - 4000));
    b.addTuple(7, 3, 'default', ['young'], [5, 6, 7, 8], treeStartOf(t0));
    b.addTuple(7, 3, 'default', ['untracked, no time'], null);
    const f = readFrame(encodeFrame(6700, b));
    assert.equal(f.treeTime, treeTimeField(treeStartOf(t0)));
    // Read on a clock 10 s later: the second after t0 (rounded up, never earlier than the tuple's start).
    assert.equal(msOfTreeStart(treeStartFromField(f.treeTime, t0 + 10_000)), t0 - 250 + 1000);
    b.clear();
    b.addTuple(7, 3, 'default', ['a'], [1, 2, 3, 4], treeStartOf(t0));
    b.addTuple(7, 3, 'default', ['from a tool'], [1, 2, 3, 4]);
    assert.equal(readFrame(encodeFrame(6700, b)).treeTime, NO_TREE_TIME, 'one tracked tuple of unknown time: the frame has none');
    b.clear();
    b.addTuple(7, 3, 'default', ['untracked'], null, treeStartOf(t0));
    assert.equal(readFrame(encodeFrame(6700, b)).treeTime, NO_TREE_TIME, 'no tracked tuple: none');
  });

  it('reads back what the builder gathered: tuples, anchors as halves, interned streams, values, and ack runs by route and kind', () => {
    const frame = encodeFrame(6700, fullBatch(), { epoch: 17, topology: 0xdeadbeef, worker: 0x80000001 });
    const f = readFrame(frame);
    assert.equal(f.senderPort, 6700);
    assert.deepEqual(f.stamp, { epoch: 17, topology: 0xdeadbeef, worker: 0x80000001 });
    assert.equal(f.treeTime, NO_TREE_TIME, 'tuples added without a tree time: unknown');
    assert.equal(f.tupleCount, 4);
    assert.deepEqual(Array.from(f.dest), [7, 8, 7, 9]);
    assert.deepEqual(Array.from(f.src), [3, 3, 4, 4]);
    assert.deepEqual(Array.from(f.anchors), [1, -1, 2, 0]);
    assert.deepEqual(f.streams, ['default', 'side', 'dëfault ✓'], 'each stream once');
    assert.deepEqual(Array.from(f.stream), [0, 1, 0, 2]);
    assert.deepEqual(Array.from(f.ids), [1, 2, 3, 4, 0xffffffff, 0x80000000, 5, 6, 7, 8, 9, 10]);
    assert.deepEqual(f.values[0], ['a', 1]);
    assert.ok((f.values[1] as unknown[])[0] instanceof Float32Array);
    assert.deepEqual(f.values[2], [{ k: [true] }]);
    assert.deepEqual(runsOf(f), [
      { dest: 20, src: 3, kind: INIT, words: [11, 12, 13, 14] },
      { dest: 20, src: 7, kind: ACK, words: [15, 16, 17, 18, 19, 20, 21, 22] },
      { dest: 20, src: 7, kind: FAIL, words: [23, 24] },
      { dest: 3, src: 20, kind: ACKED, words: [25, 26, 27, 28] },
      { dest: 3, src: 20, kind: FAILED, words: [29, 30] },
    ]);
    assert.equal(f.ackMessages, 7);
    // The rows face: anchors as Storm's 64-bit ids.
    assert.deepEqual(f.tuples[0], [7, 3, 'default', ['a', 1], [(2n << 32n) | 1n, (4n << 32n) | 3n]]);
    assert.deepEqual(f.tuples[2]![4], [(0x80000000n << 32n) | 0xffffffffn, (6n << 32n) | 5n, (8n << 32n) | 7n, (10n << 32n) | 9n]);
    assert.equal(f.tuples[1]![4], null);
    assert.deepEqual(f.tuples[3]![4], []);
  });

  it('lays the frame out as docs/wire-format.md says: header, 4-byte aligned columns, names, then values, little-endian', () => {
    const b = fullBatch();
    const frame = encodeFrame(0x01020304, b, { epoch: 0x05060708, topology: 0x0a0b0c0d, worker: 0xfffffffe });
    assert.equal(frame[0], 0xc1);
    assert.equal(frame[1], 3);
    assert.equal(frame.readUInt16LE(2), 0);
    assert.deepEqual([...frame.subarray(4, 8)], [4, 3, 2, 1], 'the sender port, little-endian');
    assert.deepEqual([...frame.subarray(36, 40)], [8, 7, 6, 5], 'the sender\'s epoch, after the counts');
    assert.equal(frame.readUInt32LE(4 * H_TOPOLOGY), 0x0a0b0c0d, 'its topology tag');
    assert.equal(frame.readUInt32LE(4 * H_WORKER), 0xfffffffe, 'its worker tag');
    assert.equal(HEADER_BYTES, 48);
    const at = sectionsOf(frame);
    assert.equal(frame.readUInt32LE(4 * H_TUPLES), 4);
    assert.equal(frame.readUInt32LE(4 * H_ANCHORS), 3);
    assert.equal(frame.readUInt32LE(4 * H_RUNS), 5);
    assert.equal(frame.readUInt32LE(4 * H_ACK_WORDS), 4 + 8 + 2 + 4 + 2);
    for (const [name, from] of columnsOf(at, frame)) assert.equal(from % 4, 0, `${name} starts on a 4-byte boundary`);
    assert.equal(at.end, frame.length);
    assert.equal(at.end, 48 + 12 * 4 + 8 + 16 * 3 + 16 * 5 + 4 * 20 + (at.values - at.names) + frame.readUInt32LE(4 * H_VALUES_BYTES));
    assert.equal(frame.readUInt32LE(at.dest + 4), 8, 'dest of tuple 1');
    assert.equal(frame.readInt32LE(at.anchors + 4), -1, 'tuple 1 untracked');
    assert.equal(frame.readUInt16LE(at.stream + 2), 1, 'tuple 1 on the second name');
    assert.equal(frame.readUInt32LE(at.ids + 16), 0xffffffff, 'tuple 2: its first root, low half');
    assert.equal(frame.readUInt32LE(at.ackKind + 4), ACK);
    assert.equal(frame.readUInt32LE(at.ackCount + 4), 2);
    assert.equal(frame.readUInt16LE(at.names), 'default'.length);
    assert.equal(frame.toString('utf8', at.names + 2, at.names + 9), 'default');
    assert.deepEqual(valuesPackr.unpack(frame.subarray(at.values)), b.values, 'the values: one msgpack array');
  });

  it('refuses a frame cut inside any column, and every shorter prefix of a frame (a CodecError, the length disagreeing with the header)', () => {
    const frame = encodeFrame(6700, fullBatch());
    const columns = columnsOf(sectionsOf(frame), frame);
    assert.equal(columns.length, 12, 'the test batch fills every column');
    for (const [name, from, to] of columns) {
      for (const cut of new Set([from + 1, (from + to) >> 1, to - 1])) {
        assert.throws(() => readFrame(frame.subarray(0, cut)), (e: unknown) => isCodecError(e) && /truncated|shorter than/.test((e as Error).message), `cut at ${cut}, in ${name} [${from}, ${to})`);
      }
    }
    for (let cut = 0; cut < frame.length; cut++) assert.throws(() => readFrame(frame.subarray(0, cut)), isCodecError, `prefix of ${cut} bytes`);
    assert.throws(() => readFrame(Buffer.concat([frame, Buffer.of(0)])), isCodecError, 'a byte too many');
  });

  it('refuses a column shortened with a header that agrees with the shorter frame', () => {
    const frame = encodeFrame(6700, fullBatch());
    const at = sectionsOf(frame);
    const header = (i: number) => frame.readUInt32LE(4 * i);
    const cases: [string, Buffer, RegExp][] = [
      ['ids: one anchor pair fewer', shortened(frame, at.ackDest - 16, at.ackDest, H_ANCHORS, header(H_ANCHORS) - 1), /anchor pairs/],
      ['ack words: one message fewer', shortened(frame, at.names - 8, at.names, H_ACK_WORDS, header(H_ACK_WORDS) - 2), /ack runs hold/],
      ['names: its last bytes', shortened(frame, at.values - 4, at.values, H_NAME_BYTES, header(H_NAME_BYTES) - 4), /stream table/],
      ['values: its last byte', shortened(frame, frame.length - 1, frame.length, H_VALUES_BYTES, header(H_VALUES_BYTES) - 1), /values column/],
    ];
    // The ack-run columns: one run fewer, an entry gone from each of the four columns.
    const runs = header(H_RUNS);
    const oneRunFewer = Buffer.concat([
      frame.subarray(0, at.ackDest),
      ...[at.ackDest, at.ackSrc, at.ackKind, at.ackCount].map((c) => frame.subarray(c, c + 4 * (runs - 1))),
      frame.subarray(at.ackWords),
    ]);
    oneRunFewer.writeUInt32LE(runs - 1, 4 * H_RUNS);
    cases.push(['ack runs: one run fewer', oneRunFewer, /ack runs hold/]);
    // The tuple columns: one tuple fewer (its values and anchors too), an entry gone from each of the four columns.
    const b = fullBatch();
    const three = new BatchBuilder();
    for (let i = 0; i < 3; i++) three.addTuple(b.dest[i]!, b.src[i]!, b.streams[b.stream[i]!]!, b.values[i] as unknown[], null);
    const threeAt = sectionsOf(encodeFrame(6700, three));
    const oneTupleFewer = Buffer.concat([
      frame.subarray(0, HEADER_BYTES),
      ...[at.dest, at.src, at.anchors].map((c) => frame.subarray(c, c + 12)),
      frame.subarray(at.stream, at.stream + 6),
      Buffer.alloc(threeAt.ids - (threeAt.stream + 6)),
      frame.subarray(at.ids),
    ]);
    oneTupleFewer.writeUInt32LE(3, 4 * H_TUPLES);
    cases.push(['tuples: one tuple fewer', oneTupleFewer, /anchor pairs|values column/]);
    for (const [what, bad, message] of cases) {
      assert.throws(() => readFrame(bad), (e: unknown) => isCodecError(e) && message.test((e as Error).message), what);
    }
  });

  it('refuses wrong values in the columns: a stream index past the names, an anchor count below -1, an ack kind that is none', () => {
    const frame = encodeFrame(6700, fullBatch());
    const at = sectionsOf(frame);
    const patched = (write: (f: Buffer) => void): Buffer => {
      const f = Buffer.from(frame);
      write(f);
      return f;
    };
    assert.throws(() => readFrame(patched((f) => f.writeUInt16LE(3, at.stream))), (e: unknown) => isCodecError(e) && /names stream 3 of 3/.test((e as Error).message));
    assert.throws(() => readFrame(patched((f) => f.writeInt32LE(-2, at.anchors + 4))), (e: unknown) => isCodecError(e) && /-2 anchors/.test((e as Error).message));
    for (const kind of [0, 7, 0xffffffff]) assert.throws(() => readFrame(patched((f) => f.writeUInt32LE(kind, at.ackKind))), (e: unknown) => isCodecError(e) && /which is none/.test((e as Error).message), `kind ${kind}`);
    assert.throws(() => readFrame(patched((f) => (f[0] = 0x93))), (e: unknown) => isCodecError(e) && /unsupported frame version 3/.test((e as Error).message));
    assert.throws(() => readFrame(patched((f) => (f[1] = 4))), (e: unknown) => isCodecError(e) && /unsupported frame version 4/.test((e as Error).message));
    assert.throws(() => readFrame(patched((f) => (f[0] = 0x42))), (e: unknown) => isCodecError(e) && /first byte 0x42/.test((e as Error).message));
  });

  it('refuses a header whose counts run past 2^31 bytes, even where they would wrap back to the frame\'s length', () => {
    // fast-check found it: anchors 0x70000005 and a values length that made the padded offsets wrap in 32-bit arithmetic.
    const f = Buffer.from(encodeFrame(6700, fullBatch()));
    f[19] = 112;
    f[24] = 3;
    assert.throws(() => readFrame(f), (e: unknown) => isCodecError(e));
  });

  it('reads a frame that does not start on a 4-byte boundary (the columns are views that need one)', () => {
    const frame = encodeFrame(6700, fullBatch());
    const shifted = Buffer.alloc(frame.length + 1).subarray(1);
    frame.copy(shifted);
    assert.equal(shifted.byteOffset % 4, 1);
    assert.deepEqual(readFrame(shifted).tuples, readFrame(frame).tuples);
    assert.deepEqual(runsOf(readFrame(shifted)), runsOf(readFrame(frame)));
  });

  it('a frame with bytes changed anywhere is read or refused with a CodecError, never anything else (property)', () => {
    const frame = encodeFrame(6700, fullBatch());
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(frame.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (changes) => {
        const f = Buffer.from(frame);
        for (const [at, byte] of changes) f[at] = byte;
        try {
          readFrame(f);
        } catch (e) {
          assert.ok(isCodecError(e), `threw ${String(e)}`);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('merges ack messages per (destination, source, kind) and counts every message; halves share out tuples and runs', () => {
    const b = new BatchBuilder();
    // Each add returns the fill (a tuple 1, an ack message ACK_FILL); count counts messages.
    assert.equal(b.addAck(5, 2, ACK, 1, 0, 11, 0), ACK_FILL);
    assert.equal(b.addTuple(7, 3, 'default', ['x'], null), 1 + ACK_FILL);
    assert.equal(b.addAck(5, 2, ACK, 2, 0, 22, 0), 1 + 2 * ACK_FILL);
    assert.equal(b.addAck(5, 9, ACK, 3, 0, 33, 0), 1 + 3 * ACK_FILL);
    assert.equal(b.addAcks(5, 2, FAIL, Uint32Array.of(4, 0, 5, 0)), 1 + 5 * ACK_FILL);
    assert.equal(b.addAck(5, 2, ACK, 6, 0, 66, 0), 1 + 6 * ACK_FILL);
    assert.equal(b.count, 7);
    assert.ok(ACK_FILL > 0 && ACK_FILL < 1, 'an ack fills less of a batch than a tuple');
    assert.deepEqual(
      b.runs.map((r) => [r.dest, r.src, r.kind, r.words.length / ackArity(r.kind)]),
      [
        [5, 2, ACK, 3],
        [5, 9, ACK, 1],
        [5, 2, FAIL, 2],
      ],
    );
    const [first, second] = b.halves()!;
    assert.equal(first.count + second.count, 7);
    const all = [readFrame(encodeFrame(1, first)), readFrame(encodeFrame(1, second))];
    assert.deepEqual(
      all.flatMap((f) => f.tuples),
      [[7, 3, 'default', ['x'], null]],
    );
    assert.deepEqual(
      all.flatMap(runsOf).map((r) => [r.dest, r.src, r.kind, r.words]),
      [
        [5, 2, ACK, [1, 0, 11, 0, 2, 0, 22, 0, 6, 0, 66, 0]],
        [5, 9, ACK, [3, 0, 33, 0]],
        [5, 2, FAIL, [4, 0, 5, 0]],
      ],
    );
    // Halving goes on down to a single message.
    let parts = [b];
    for (let round = 0; round < 10; round++) parts = parts.flatMap((p) => p.halves() ?? [p]);
    assert.equal(parts.length, 7);
    assert.ok(parts.every((p) => p.count === 1 && p.halves() === null));
    b.clear();
    assert.equal(b.count, 0);
    assert.equal(b.fill, 0);
    assert.deepEqual(runsOf(readFrame(encodeFrame(1, b))), []);
    assert.deepEqual(readFrame(encodeFrame(1, b)).tuples, []);
  });

  it('round-trips any batch of tuples and runs (property)', () => {
    const half = fc.nat({ max: 0xffffffff });
    const tuple = fc.record({
      dest: fc.nat({ max: 100_000 }),
      src: fc.nat({ max: 100_000 }),
      stream: fc.constantFrom('default', 's1', 'ünïcode', 'x'.repeat(300)),
      values: fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { maxLength: 4 }),
      anchors: fc.option(fc.array(fc.tuple(half, half, half, half), { maxLength: 3 }).map((q) => q.flat()), { nil: null }),
    });
    const run = fc.record({ dest: fc.nat({ max: 1000 }), src: fc.nat({ max: 1000 }), kind: fc.constantFrom<AckKind>(INIT, ACK, FAIL, ACKED, FAILED), halves: fc.array(half, { minLength: 4, maxLength: 4 }) });
    fc.assert(
      fc.property(fc.array(tuple, { maxLength: 20 }), fc.array(run, { maxLength: 20 }), fc.record({ epoch: half, topology: half, worker: half }), (tuples, acks, stamp) => {
        const b = new BatchBuilder();
        for (const t of tuples) b.addTuple(t.dest, t.src, t.stream, t.values, t.anchors);
        const expected = new Map<string, number[]>();
        for (const a of acks) {
          const [lo, hi, vlo, vhi] = a.halves as [number, number, number, number];
          b.addAck(a.dest, a.src, a.kind, lo, hi, vlo, vhi);
          const key = `${a.dest}/${a.src}/${a.kind}`;
          expected.set(key, [...(expected.get(key) ?? []), ...(ackArity(a.kind) === 4 ? [lo, hi, vlo, vhi] : [lo, hi])]);
        }
        const f = readFrame(encodeFrame(42, b, stamp));
        assert.deepEqual(f.stamp, { ...stamp });
        assert.equal(f.tupleCount, tuples.length);
        let w = 0;
        tuples.forEach((t, i) => {
          assert.equal(f.dest[i], t.dest);
          assert.equal(f.src[i], t.src);
          assert.equal(f.streams[f.stream[i]!], t.stream);
          assert.deepEqual(f.values[i], t.values);
          const n = f.anchors[i]!;
          assert.deepEqual(n < 0 ? null : Array.from(f.ids.subarray(w, (w += 4 * n))), t.anchors);
        });
        assert.deepEqual(new Map(runsOf(f).map((r) => [`${r.dest}/${r.src}/${r.kind}`, r.words])), expected);
      }),
      { numRuns: 300 },
    );
  });
});
