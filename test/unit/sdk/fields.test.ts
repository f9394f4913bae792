/**
 * Storm's `Fields` habits: both constructors, its accessors, and a `Fields` wherever field names are taken
 * (declare, declareStream, fieldsGrouping). A habit that does not fit fails at the user's own call, naming it.
 */
import assert from 'node:assert/strict';
import { Bolt, Fields, Spout, TopologyBuilder, TopologyValidationError } from '../../../topology-sdk/index.js';
import type { OutputFieldsDeclarer } from '../../../topology-sdk/index.js';

class PairSpout extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(new Fields('word', 'count'));
    d.declareStream('odd', new Fields(['n']));
  }
}

class Sink extends Bolt {
  execute(): void {}
}

describe('topology-sdk/fields: Storm habits', () => {
  it('is built from names or from an array, and answers as Storm does', () => {
    const a = new Fields('word', 'count');
    const b = new Fields(['word', 'count']);
    assert.deepEqual(a.names, b.names);
    assert.deepEqual(new Fields(a).toList(), ['word', 'count']);
    assert.equal(a.get(1), 'count');
    assert.equal(a.fieldIndex('count'), 1);
    assert.throws(() => a.fieldIndex('nope'), /field "nope" does not exist \(fields: word, count\)/);
    assert.throws(() => a.get(2), /no field at index 2/);
    assert.equal(a.contains('word'), true);
    assert.equal(a.contains('nope'), false);
    assert.deepEqual(a.select(new Fields('count'), ['x', 3]), [3]);
    assert.deepEqual(a.select(['count', 'word'], ['x', 3]), [3, 'x']);
    assert.deepEqual([...a], ['word', 'count']);
    assert.equal(new Fields().size(), 0);
  });

  it('refuses what is not a field name, saying where', () => {
    assert.throws(() => new Fields(['a', 3 as unknown as string]), (e: unknown) => e instanceof TopologyValidationError && /new Fields\(…\): field 1 must be a non-empty string, got number 3/.test(e.message));
    assert.throws(() => new Fields({ a: 1 } as unknown as string[]), /must be a Fields or an array of strings, got an object \(Object\)/);
  });

  it('is taken by declare, declareStream and fieldsGrouping, in both of Storm\'s argument orders', () => {
    const b = new TopologyBuilder();
    b.setSpout('pairs', () => new PairSpout());
    b.setBolt('by-word', () => new Sink(), 2).fieldsGrouping('pairs', new Fields('word'));
    b.setBolt('by-n', () => new Sink(), 2).fieldsGrouping('pairs', 'odd', new Fields('n'));
    const def = b.createTopology().def;
    const spout = def.components.find((c) => c.id === 'pairs')!;
    assert.deepEqual(spout.streams.map((s) => [s.id, s.fields]), [['default', ['word', 'count']], ['odd', ['n']]]);
    assert.deepEqual(def.components.find((c) => c.id === 'by-word')!.inputs[0]!.grouping, { type: 'fields', fields: ['word'] });
    assert.deepEqual(def.components.find((c) => c.id === 'by-n')!.inputs[0], { component: 'pairs', stream: 'odd', grouping: { type: 'fields', fields: ['n'] } });
  });

  it('names the component and stream when declare gets something else', () => {
    class Odd extends Spout {
      nextTuple(): void {}
      declareOutputFields(d: OutputFieldsDeclarer): void {
        d.declare('word' as unknown as string[]);
      }
    }
    const b = new TopologyBuilder();
    b.setSpout('odd', () => new Odd());
    assert.throws(() => b.createTopology(), /component "odd", stream "default": field names must be a Fields or an array of strings, got string "word"/);
  });
});
