import assert from 'node:assert/strict';
import { Fields, Tuple } from '../../../topology-sdk/index.js';

function tuple(values: unknown[], names: string[], anchors: bigint[] | null = null): Tuple {
  return new Tuple(values, new Fields(names), 'split', 'default', 7, anchors);
}

describe('topology-sdk/tuple', () => {
  it('reads values by position and by field name', () => {
    const t = tuple(['storm', 3, [1, 2]], ['word', 'count', 'list']);
    assert.equal(t.size, 3);
    assert.equal(t.getValue(0), 'storm');
    assert.equal(t.getValue(5), undefined);
    assert.equal(t.getValueByField('word'), 'storm');
    assert.equal(t.getValueByField('count'), 3);
    assert.deepEqual(t.getValueByField('list'), [1, 2]);
    assert.equal(t.getStringByField('count'), '3');
    assert.equal(t.getNumberByField('count'), 3);
    assert.equal(t.contains('word'), true);
    assert.equal(t.contains('nope'), false);
    assert.deepEqual(t.toObject(), { word: 'storm', count: 3, list: [1, 2] });
  });

  it('knows where it came from', () => {
    const t = tuple(['a'], ['word']);
    assert.equal(t.sourceComponent, 'split');
    assert.equal(t.sourceStreamId, 'default');
    assert.equal(t.sourceTask, 7);
    assert.equal(t.anchors, null);
    assert.equal(t.ackVal, 0n);
  });

  it('names the field, the stream, the source and the declared fields for an unknown field', () => {
    const t = tuple(['storm', 3], ['word', 'count']);
    assert.throws(
      () => t.getValueByField('wrod'),
      (e: Error) => ['"wrod"', '"default"', '"split"', 'word, count'].every((p) => e.message.includes(p)),
    );
    assert.throws(() => t.getStringByField('nope'), /"nope"/);
    assert.throws(() => t.getNumberByField('nope'), /"nope"/);
  });

  it('prints bigint values and its source', () => {
    const t = tuple([1n << 63n, 'x'], ['id', 'v'], [1n, 2n]);
    assert.equal(t.toString(), 'source: split:7, stream: default, ["9223372036854775808","x"]');
  });
});

describe('topology-sdk/fields', () => {
  it('maps names to positions and freezes the list', () => {
    const f = new Fields(['a', 'b', 'c']);
    assert.equal(f.size, 3);
    assert.equal(f.indexOf('c'), 2);
    assert.equal(f.indexOf('z'), -1);
    assert.equal(f.has('a'), true);
    assert.ok(Object.isFrozen(f.names));
    const source = ['x'];
    const g = new Fields(source);
    source.push('y');
    assert.deepEqual(g.names, ['x'], 'a later change to the source array does not leak in');
  });
});
