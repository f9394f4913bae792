/**
 * Compact nodes (common/cluster-state/json-node.ts): a worker's metrics record
 * is written as deflated JSON, and every reader takes both forms — told apart
 * by the zlib header, which JSON text never starts with — so a record written
 * compact reads back as written, a plain one still reads, and compact bytes
 * that do not inflate (or inflate to something no schema takes) are CORRUPT,
 * never an exception of another kind.
 */
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { z } from 'zod';
import { isStateError } from '../../../common/cluster-state.js';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { decodeJson, encodeCompactJson, encodeJson, isCompact, putNode, readJson } from '../../../common/cluster-state/json-node.js';

const schema = z.looseObject({ n: z.number(), xs: z.array(z.number()) });

describe('compact JSON nodes', () => {
  it('reads back what was written compact, and is smaller when the JSON repeats itself', async () => {
    const state = new InMemoryClusterStore().session();
    const value = { n: 7, xs: Array.from({ length: 400 }, (_, i) => i % 17) };
    await putNode(state, '/a/b', encodeCompactJson(value));
    const { value: back } = await readJson(state, '/a/b', schema);
    assert.deepEqual(back, value);
    assert.ok(encodeCompactJson(value).length * 3 < encodeJson(value).length);
  });

  it('tells compact from plain for any value: plain JSON never looks compact (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const plain = encodeJson(v);
        assert.equal(isCompact(plain), false);
        assert.equal(isCompact(encodeCompactJson(v)), true);
        assert.deepEqual(decodeJson('/x', encodeCompactJson(v), z.unknown()), JSON.parse(plain.toString('utf8')));
      }),
      { numRuns: 300 },
    );
  });

  for (const [what, bytes] of [
    ['a zlib header over garbage', Buffer.from([0x78, 0x9c, 1, 2, 3, 4, 5])],
    ['a compact node of the wrong shape', deflateSync(Buffer.from(JSON.stringify({ n: 'seven' })))],
    ['deflated bytes that are not UTF-8 JSON', deflateSync(Buffer.from([0xff, 0xfe, 0x00]))],
  ] as const) {
    it(`raises CORRUPT for ${what}`, () => {
      assert.throws(() => decodeJson('/x', bytes, schema), (err: unknown) => isStateError(err, 'CORRUPT'));
    });
  }

  it('refuses to inflate past its bound (a deflate bomb is CORRUPT, not a memory spike)', () => {
    const bomb = deflateSync(Buffer.alloc(64 * 2 ** 20, 0x20));
    assert.ok(bomb.length < 256 * 1024);
    assert.throws(() => decodeJson('/x', bomb, schema), (err: unknown) => isStateError(err, 'CORRUPT'));
  });
});
