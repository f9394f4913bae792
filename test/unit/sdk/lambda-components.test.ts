/**
 * Storm 2's lambda components through TopologyBuilder, and what the builder tells apart by type: a supplier from a
 * spout factory (by what it returns), `(tuple, collector) => …` and `(tuple) => …` from a bolt factory (by the
 * parameters they declare), and the forms that cannot work — a component instance, a class, fields on a factory, a
 * factory that forgot its `return` — refused with the form that works. Also the tick-aware base bolt.
 */
import assert from 'node:assert/strict';
import { BasicBolt, Bolt, BaseTickTupleAwareRichBolt, Spout, TickTupleAwareBolt, TopologyBuilder, TopologyValidationError, type OutputFieldsDeclarer, type Tuple } from 'hstorm';
import { CapturingBasicOutputCollector, CapturingOutputCollector, CapturingSpoutOutputCollector, testContext, testTickTuple, testTuple } from 'hstorm/testing';

class Words extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word']);
  }
}

class Sink extends Bolt {
  execute(): void {}
}

describe('lambda components (Storm 2: setSpout(id, supplier), setBolt(id, lambda))', () => {
  it('a supplier spout emits each value as field "lambda", untracked, nothing for null, and loses no value to the builder’s call', () => {
    let n = 0;
    const values = ['a', null, ['x', 1], 'b'];
    const b = new TopologyBuilder();
    b.setSpout('gen', () => values[n++] ?? null, 2);
    b.setBolt('sink', () => new Sink()).shuffleGrouping('gen');
    const top = b.createTopology();
    assert.deepEqual(top.def.components.find((c) => c.id === 'gen')!.streams, [{ id: 'default', fields: ['lambda'], direct: false }]);
    assert.equal(top.def.components.find((c) => c.id === 'gen')!.parallelism, 2);
    // createTopology called the supplier once (to tell it from a factory): that 'a' is the first task's first tuple.
    assert.equal(n, 1);
    const spout = top.factories.get('gen')!() as Spout;
    const out = new CapturingSpoutOutputCollector();
    void spout.open({}, testContext({ component: 'gen' }), out);
    for (let i = 0; i < 5; i++) void spout.nextTuple();
    assert.deepEqual(
      out.emitted.map((e) => [e.values, e.messageId]),
      [
        [['a'], undefined],
        [[['x', 1]], undefined],
        [['b'], undefined],
      ],
    );
  });

  it('a spout factory is still a factory, a fresh spout per call', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words());
    const top = b.createTopology();
    const one = top.factories.get('words')!();
    assert.ok(one instanceof Words);
    assert.notEqual(top.factories.get('words')!(), one);
  });

  it('(tuple, collector) => … is a basic bolt declaring the fields given, with or without a parallelism; (tuple) => … emits nothing', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words());
    b.setBolt('upper', (t: Tuple, c) => void c.emit([t.getStringByField('word').toUpperCase(), 1]), 3, 'word', 'n').shuffleGrouping('words');
    b.setBolt('bare', (t, c) => void c.emit([t.getValue(0)]), 'same').shuffleGrouping('words');
    const seen: unknown[] = [];
    b.setBolt('log', (t: Tuple) => void seen.push(t.getValue(0))).shuffleGrouping('upper');
    const top = b.createTopology();
    const def = (id: string) => top.def.components.find((c) => c.id === id)!;
    assert.equal(def('upper').parallelism, 3);
    assert.deepEqual(def('upper').streams, [{ id: 'default', fields: ['word', 'n'], direct: false }]);
    assert.deepEqual(def('bare').streams, [{ id: 'default', fields: ['same'], direct: false }]);
    assert.deepEqual(def('log').streams, []);
    const upper = top.factories.get('upper')!() as BasicBolt;
    assert.ok(upper instanceof BasicBolt, 'runs as a basic bolt: anchored emits, acked when it returns');
    const input = testTuple(['cow'], { component: 'words', fields: ['word'] });
    const out = new CapturingBasicOutputCollector(input);
    void upper.execute(input, out);
    assert.deepEqual(out.emitted.map((e) => [e.values, e.anchors]), [[['COW', 1], [input]]]);
    const log = top.factories.get('log')!() as BasicBolt;
    void log.execute(testTuple(['COW']), new CapturingBasicOutputCollector());
    assert.deepEqual(seen, ['COW']);
  });

  it('refuses, naming the form that works: an instance, a class, fields for a factory or a consumer, a factory without its return', () => {
    const refused = (build: (b: TopologyBuilder) => void, message: RegExp) => {
      const b = new TopologyBuilder();
      b.setSpout('words', () => new Words());
      build(b);
      assert.throws(
        () => b.createTopology(),
        (e: unknown) => e instanceof TopologyValidationError && message.test(e.message),
      );
    };
    refused((b) => b.setBolt('x', new Sink() as never), /setBolt got an instance of Sink; .*setBolt\("x", \(\) => new MyBolt\(…\)\)/);
    refused((b) => b.setSpout('s', new Words() as never), /setSpout got an instance of Words; .*setSpout\("s", \(\) => new MySpout\(…\)\)/);
    refused((b) => b.setBolt('x', Sink as never), /not the class Sink: write setBolt\("x", \(\) => new Sink\(…\)\)/);
    refused((b) => b.setSpout('s', Words as never), /not the class Words/);
    refused((b) => b.setBolt('x', (() => new Sink()) as never, 1, 'f'), /was given output fields, but a factory makes a bolt that declares its own streams/);
    refused((b) => b.setBolt('x', ((_t: Tuple) => undefined) as never, 1, 'f'), /was given output fields, but a consumer, \(tuple\) => …, emits nothing/);
    refused((b) => b.setSpout('s', (() => void new Words()) as never), /fn returned undefined; a factory returns a spout \(a missing `return`\?\)/);
    refused((b) => b.setSpout('s', () => new Sink()), /returned an instance of Sink, a component but not a spout/);
  });

  it('the tick-aware bolt (Storm’s BaseTickTupleAwareRichBolt) sends ticks to onTickTuple and the rest to process', () => {
    class Counting extends TickTupleAwareBolt {
      ticks: Tuple[] = [];
      data: Tuple[] = [];
      private out!: CapturingOutputCollector;
      override prepare(_c: unknown, _x: unknown, out: CapturingOutputCollector): void {
        this.out = out;
      }
      protected override onTickTuple(t: Tuple): void {
        this.ticks.push(t);
      }
      protected process(t: Tuple): void {
        this.data.push(t);
        this.out.ack(t);
      }
    }
    assert.equal(BaseTickTupleAwareRichBolt, TickTupleAwareBolt, "Storm's name is the same class");
    const bolt = new Counting();
    const out = new CapturingOutputCollector();
    bolt.prepare({}, testContext(), out);
    const tick = testTickTuple(5);
    const data = testTuple(['x']);
    void bolt.execute(tick);
    void bolt.execute(data);
    assert.deepEqual(bolt.ticks, [tick]);
    assert.deepEqual(bolt.data, [data]);
    assert.deepEqual(out.acked, [data]);
    // By default a tick does nothing.
    class Quiet extends TickTupleAwareBolt {
      protected process(): void {}
    }
    assert.equal(new Quiet().execute(tick), undefined);
  });
});
