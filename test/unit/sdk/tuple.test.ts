import assert from 'node:assert/strict';
import { Fields } from '../../../topology-sdk/index.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';

function tuple(values: unknown[], names: string[], anchors: number[] | null = null): RuntimeTuple {
  return new RuntimeTuple(values, new Fields(names), 'split', 'default', 7, anchors);
}

describe('topology-sdk/tuple', () => {
  it('reads values by position and by field name', () => {
    const t = tuple(['storm', 3, [1, 2]], ['word', 'count', 'list']);
    assert.equal(t.size(), 3);
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
    assert.equal(t.ackLo, 0);
    assert.equal(t.ackHi, 0);
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

  it("answers Storm's typed getters by position and by field", () => {
    const bytes = new Uint8Array([1, 2]);
    const t = tuple([42, 7n, 2.5, true, 'w', bytes], ['i', 'l', 'd', 'b', 's', 'bin']);
    assert.equal(t.getInteger(0), 42);
    assert.equal(t.getIntegerByField('i'), 42);
    assert.equal(t.getLong(1), 7);
    assert.equal(t.getLongByField('l'), 7);
    assert.equal(t.getLongByField('i'), 42);
    assert.equal(t.getShortByField('i'), 42);
    assert.equal(t.getByte(0), 42);
    assert.equal(t.getDouble(2), 2.5);
    assert.equal(t.getDoubleByField('d'), 2.5);
    assert.equal(t.getFloatByField('i'), 42);
    assert.equal(t.getBoolean(3), true);
    assert.equal(t.getBooleanByField('b'), true);
    assert.equal(t.getString(4), 'w');
    assert.equal(t.getStringByField('s'), 'w');
    assert.equal(t.getBinaryByField('bin'), bytes);
    assert.deepEqual(t.getValues(), [42, 7n, 2.5, true, 'w', bytes]);
    assert.deepEqual(t.getFields().names, ['i', 'l', 'd', 'b', 's', 'bin']);
    assert.equal(t.fieldIndex('d'), 2);
    assert.deepEqual(t.select(['s', 'i']), ['w', 42]);
    assert.equal(t.size(), 6);
  });

  it('refuses a value of the wrong type, naming the field, the source and what the value is', () => {
    const t = tuple(['3', 2.5, 1n << 60n, null], ['count', 'ratio', 'big', 'nothing']);
    assert.throws(() => t.getIntegerByField('count'), (e: Error) => e instanceof TypeError && /value 0 \("count"\) of a tuple from "split" stream "default" is not an integer: it is string "3"/.test(e.message));
    assert.throws(() => t.getInteger(1), /is not an integer: it is number 2\.5/);
    assert.throws(() => t.getLongByField('big'), /is not a long .*: it is bigint 1152921504606846976n/);
    assert.throws(() => t.getBooleanByField('nothing'), /is not a boolean: it is null/);
    assert.throws(() => t.getDouble(9), /value 9 of a tuple .* is not a number: it is no value \(the tuple has 4\)/);
    assert.throws(() => t.getBinaryByField('count'), /is not bytes/);
    assert.throws(() => t.getIntegerByField('nope'), /"nope" is not declared/);
  });

  it("tells where it came from and which ack trees it belongs to, with Storm's names", () => {
    // Ids as halves (low, high): root 11 with edge 2^32 + 5, root 2^32 × 3 + 12 with edge 6.
    const t = tuple(['a'], ['word'], [11, 0, 5, 1, 12, 3, 6, 0]);
    assert.equal(t.getSourceComponent(), 'split');
    assert.equal(t.getSourceStreamId(), 'default');
    assert.equal(t.getSourceTask(), 7);
    assert.deepEqual([...t.getMessageId().anchorsToIds], [
      [11n, (1n << 32n) + 5n],
      [(3n << 32n) + 12n, 6n],
    ]);
    assert.equal(tuple(['a'], ['word']).getMessageId().anchorsToIds.size, 0);
  });

  it('prints bigint values and its source', () => {
    const t = tuple([1n << 63n, 'x'], ['id', 'v'], [1, 0, 2, 0]);
    assert.equal(t.toString(), 'source: split:7, stream: default, ["9223372036854775808","x"]');
  });
});

describe('topology-sdk/fields', () => {
  it('maps names to positions and freezes the list', () => {
    const f = new Fields(['a', 'b', 'c']);
    assert.equal(f.size(), 3);
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
