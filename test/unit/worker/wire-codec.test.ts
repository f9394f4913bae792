import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { decodeBatch, encodeBatch, isWireTuple, WIRE_VERSION, type WireTuple } from '../../../worker/transport/wire-codec.js';
import { CodecError } from '../../../common/errors.js';

const MAX_U64 = (1n << 64n) - 1n;

function isCodecError(e: unknown): boolean {
  return e instanceof CodecError && e.code === 'HSTORM_ERR_CODEC_DECODE';
}

/** A frame that is valid msgpack but has whatever shape the test wants. */
const raw = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });

describe('worker/transport/wire-codec', () => {
  it('round-trips strings, numbers, nested arrays, typed arrays and 64-bit anchors', () => {
    const matrix = new Float32Array([1.5, -2.25, 3e10, 0, Number.NaN]);
    const tuples: WireTuple[] = [
      [3, 1, 'default', ['hello', 'wörld ✓', ''], null],
      [4, 1, 'default', [0, -1, 2 ** 31, 2 ** 53 - 1, -(2 ** 53) + 1, 1.25, -0.5], [1n, MAX_U64]],
      [5, 2, 'matrix', [[1, [2, [3, ['deep']]]], matrix, { a: 1, b: [true, false, null] }], [MAX_U64 - 1n, 2n ** 63n, 2n ** 63n - 1n, 0x8000_0000_0000_0001n]],
      [6, 2, '__ack_ack', [MAX_U64, 0x1234_5678_9abc_def0n], null],
    ];
    const frame = encodeBatch(6701, tuples);
    const batch = decodeBatch(frame);
    assert.equal(batch.senderPort, 6701);
    assert.equal(batch.tuples.length, tuples.length);
    for (const t of batch.tuples) assert.ok(isWireTuple(t), `not a wire tuple: ${String(t)}`);
    assert.deepEqual(batch.tuples[0], tuples[0]);
    assert.deepEqual(batch.tuples[1], tuples[1]);
    const m = batch.tuples[2]![3][1];
    assert.ok(m instanceof Float32Array, 'a Float32Array stays a Float32Array');
    assert.deepEqual(Array.from(m), Array.from(matrix));
    assert.deepEqual(batch.tuples[2]![3][0], tuples[2]![3][0]);
    assert.deepEqual(batch.tuples[2]![3][2], tuples[2]![3][2]);
    assert.deepEqual(batch.tuples[2]![4], tuples[2]![4]);
    assert.deepEqual(batch.tuples[3], tuples[3]);
  });

  it('round-trips an empty batch', () => {
    assert.deepEqual(decodeBatch(encodeBatch(1, [])), { senderPort: 1, tuples: [] });
  });

  it('round-trips any batch (property)', () => {
    const u64 = fc.bigInt({ min: 1n, max: MAX_U64 });
    // msgpack has no -0 integer: -0 arrives as 0 (harmless for tuple values), so the property leaves it out.
    const double = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x));
    const scalar = fc.oneof(fc.string(), fc.integer(), double, fc.boolean(), fc.constant(null));
    const value = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 5 }),
      fc.array(fc.array(scalar, { maxLength: 3 }), { maxLength: 3 }),
    );
    const anchors = fc.oneof(
      fc.constant(null),
      fc.array(fc.tuple(u64, u64), { maxLength: 4 }).map((pairs) => pairs.flat()),
    );
    const tuple: fc.Arbitrary<WireTuple> = fc.tuple(
      fc.integer({ min: 1, max: 100_000 }),
      fc.integer({ min: 1, max: 100_000 }),
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.array(value, { maxLength: 6 }),
      anchors,
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), fc.array(tuple, { maxLength: 20 }), (port, tuples) => {
        const batch = decodeBatch(encodeBatch(port, tuples));
        assert.equal(batch.senderPort, port);
        assert.deepEqual(batch.tuples, tuples);
        for (const t of batch.tuples) assert.ok(isWireTuple(t));
      }),
      { numRuns: 200 },
    );
  });

  it('rejects random bytes with a CodecError, never anything else (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), (bytes) => {
        try {
          decodeBatch(bytes);
        } catch (e) {
          assert.ok(isCodecError(e), `threw ${String(e)}`);
          return;
        }
        // Random bytes that happen to decode must still have the batch shape.
      }),
      { numRuns: 500 },
    );
  });

  it('rejects an empty and a truncated frame', () => {
    assert.throws(() => decodeBatch(new Uint8Array(0)), isCodecError);
    const frame = encodeBatch(6700, [[1, 2, 'default', ['a long enough string to cut', 42], [1n, 2n]]]);
    for (const cut of [1, 2, 5, Math.floor(frame.length / 2), frame.length - 1]) {
      assert.throws(() => decodeBatch(frame.subarray(0, cut)), isCodecError, `cut at ${cut} of ${frame.length}`);
    }
  });

  it('rejects a frame of another version', () => {
    assert.throws(() => decodeBatch(raw.pack([WIRE_VERSION + 1, 6700, []])), (e: unknown) => isCodecError(e) && new RegExp(`version ${WIRE_VERSION + 1}`).test((e as Error).message));
    // A worker of the version before the value extensions (Maps, -0, registered classes) is refused, not misread.
    assert.throws(() => decodeBatch(raw.pack([1, 6700, []])), (e: unknown) => isCodecError(e) && /unsupported frame version 1/.test((e as Error).message));
    assert.throws(() => decodeBatch(raw.pack(['1', 6700, []])), isCodecError);
  });

  it('rejects frames of the wrong shape', () => {
    for (const msg of [
      null,
      42,
      'text',
      { version: 1, senderPort: 6700, tuples: [] },
      [],
      [WIRE_VERSION, 6700],
      [WIRE_VERSION, 6700, [], 'extra'],
      [WIRE_VERSION, '6700', []],
      [WIRE_VERSION, 6700, { 0: [] }],
      [WIRE_VERSION, 6700, null],
    ]) {
      assert.throws(() => decodeBatch(raw.pack(msg)), isCodecError, JSON.stringify(msg));
    }
  });

  it('isWireTuple rejects malformed tuples', () => {
    const good: WireTuple = [1, 2, 's', [1], [1n, 2n]];
    assert.equal(isWireTuple(good), true);
    assert.equal(isWireTuple([1, 2, 's', [], null]), true);
    for (const bad of [
      null,
      'x',
      {},
      [],
      [1, 2, 's', [1]],
      [1, 2, 's', [1], null, 'extra'],
      ['1', 2, 's', [1], null],
      [1, null, 's', [1], null],
      [1, 2, 3, [1], null],
      [1, 2, 's', 'values', null],
      [1, 2, 's', { 0: 1 }, null],
      [1, 2, 's', [1], [1n]], // odd number of ids
      [1, 2, 's', [1], [1, 2]], // ids as numbers, not bigints
      [1, 2, 's', [1], [1n, '2']],
      [1, 2, 's', [1], 1n],
      [1, 2, 's', [1], undefined],
    ]) {
      assert.equal(isWireTuple(bad), false, String(JSON.stringify(bad, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))));
    }
  });
});
