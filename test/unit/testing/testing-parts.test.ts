/** hstorm/testing's parts without a cluster: mocked sources, the wrapped topology, capture files, and the unit-test helpers. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrapForTesting } from '../../../testing/wrap-topology.js';
import { captureEmits, readCaptured } from '../../../testing/capture.js';
import { MockedSources, resolveMocked } from '../../../testing/mocked-sources.js';
import { MOCKED_SOURCES_KEY, MockedSpout } from '../../../testing/mocked-spout.js';
import { CapturingBasicOutputCollector, CapturingOutputCollector, CapturingSpoutOutputCollector, testContext, testTickTuple, testTuple } from '../../../testing/index.js';
import { BasicBolt, Bolt, Spout, TopologyBuilder, TupleUtils, type BasicOutputCollector, type Conf, type OutputCollector, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from '../../../topology-sdk/index.js';
import { encodeRecord, ValueTypes } from '../../../worker/index.js';

class S extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['x']).declareStream('side', ['y', 'z']).declareStream('d', ['z'], { direct: true });
  }
}
class OnlySide extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declareStream('odd', ['n']).declareStream('even', ['n']);
  }
}
class B extends BasicBolt {
  execute(): void {}
}

class Point {
  constructor(readonly x: number) {}
  twice(): number {
    return 2 * this.x;
  }
}

function topology() {
  const b = new TopologyBuilder();
  b.setSpout('s', () => new S(), 2);
  b.setSpout('n', () => new OnlySide(), 1);
  b.setBolt('b', () => new B(), 1).shuffleGrouping('s');
  return b.createTopology();
}

describe('testing: mocked sources', () => {
  it('puts a bare list on the default stream, or the first one a spout declares, and per-stream mocks where they say', () => {
    const def = topology().def;
    assert.deepEqual(resolveMocked({ s: [[1]], n: [[2]] }, def), { s: { default: [[1]] }, n: { odd: [[2]] } });
    assert.deepEqual(resolveMocked({ n: { even: [[2], [4]], odd: [[1]] } }, def), { n: { even: [[2], [4]], odd: [[1]] } });
    const m = new MockedSources().addMockData('n', 'even', [2], [4]).addMockData('n', 'odd', [1]).addMockData('s', ['x'], ['y']);
    assert.deepEqual(m.resolve(def), { n: { even: [[2], [4]], odd: [[1]] }, s: { default: [['x'], ['y']] } });
  });

  it('refuses a mock of a bolt, of an undeclared or direct stream, or of the wrong size, naming it', () => {
    const def = topology().def;
    assert.throws(() => resolveMocked({ b: [[1]] }, def), /mocked source "b" is not a spout of the topology \(spouts: s, n\)/);
    assert.throws(() => resolveMocked({ n: { nope: [[1]] } }, def), /mocked source "n": stream "nope" is not one it declares \(odd, even\)/);
    assert.throws(() => resolveMocked({ s: { d: [[1]] } }, def), /stream "d" is direct/);
    assert.throws(() => resolveMocked({ s: { side: [[1]] } }, def), /tuple 0 must be a list of 2 value\(s\) \(y, z\)/);
  });
});

describe('testing: the wrapped topology', () => {
  it('replaces mocked spouts, keeps the definition and code, and captures from the same component objects', async () => {
    const t = topology();
    const mocked = encodeRecord({ s: { default: [[1]] } }).toString('base64');
    const wrapped = await wrapForTesting(t, { config: { [MOCKED_SOURCES_KEY]: mocked, 'testing.capture.dir': '/tmp/x' } });
    assert.equal(wrapped.def, t.def, 'the definition every worker checks against is unchanged');
    assert.ok(wrapped.factories.get('s')!() instanceof MockedSpout);
    assert.ok(wrapped.factories.get('n')!() instanceof OnlySide, 'a spout that is not mocked runs as written');
    assert.ok(wrapped.factories.get('b')!() instanceof BasicBolt);
    await assert.rejects(wrapForTesting(t, { config: { [MOCKED_SOURCES_KEY]: encodeRecord({ b: { default: [[1]] } }).toString('base64') } }), /mocked source "b" is not a spout/);
  });

  it('captures every emit of a bolt, direct ones included, with the values\' real types', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hstorm-capture-test-'));
    try {
      const types = new ValueTypes([{ name: 'Point', Class: Point, serializer: null }]);
      class Emitting extends Bolt {
        c!: OutputCollector;
        override prepare(_conf: Conf, _ctx: TopologyContext, c: OutputCollector): void {
          this.c = c;
        }
        execute(t: Tuple): void {
          this.c.emit('side', t, [new Map([[1, 'a']]), new Date(7)]);
          this.c.emitDirect(9, 'd', [new Point(3)]);
        }
      }
      const bolt = captureEmits(new Emitting(), 'emitting', dir, types);
      const inner = new CapturingOutputCollector();
      bolt.prepare({}, testContext({ component: 'emitting', task: 4 }), inner);
      bolt.execute(testTuple(['x']));
      assert.equal(inner.emitted.length, 2, 'the real collector still gets every emit');
      const captured = await readCaptured(dir, types);
      assert.deepEqual(
        captured.map((c) => [c.component, c.stream, c.task, c.directTask]),
        [
          ['emitting', 'side', 4, null],
          ['emitting', 'd', 4, 9],
        ],
      );
      const [m, d] = captured[0]!.values as [Map<number, string>, Date];
      assert.ok(m instanceof Map && m.get(1) === 'a');
      assert.ok(d instanceof Date && d.getTime() === 7);
      assert.equal((captured[1]!.values[0] as Point).twice(), 6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('testing: unit tests of one component (testTuple, capturing collectors, testContext)', () => {
  /** storm-starter's ExclamationBolt, as a Storm user writes it. */
  class ExclamationBolt extends Bolt {
    private c!: OutputCollector;
    override prepare(_conf: Conf, _ctx: TopologyContext, c: OutputCollector): void {
      this.c = c;
    }
    execute(t: Tuple): void {
      if (TupleUtils.isTick(t)) return;
      this.c.emit(t, [`${t.getString(0)}!!!`]);
      this.c.ack(t);
    }
    override declareOutputFields(d: OutputFieldsDeclarer): void {
      d.declare(['word']);
    }
  }

  it("testTuple is Storm's: component \"component\", stream default, task 1, fields field1…", () => {
    const t = testTuple(['a', 2]);
    assert.equal(t.getSourceComponent(), 'component');
    assert.equal(t.getSourceStreamId(), 'default');
    assert.equal(t.getSourceTask(), 1);
    assert.deepEqual(t.getFields().toList(), ['field1', 'field2']);
    assert.equal(t.getIntegerByField('field2'), 2);
    const u = testTuple(['w'], { component: 'words', stream: 'odd', task: 7, fields: ['word'] });
    assert.equal(u.getStringByField('word'), 'w');
    assert.equal(u.getSourceStreamId(), 'odd');
    assert.throws(() => testTuple(['a'], { fields: ['x', 'y'] }), /1 value\(s\) for 2 field\(s\)/);
    assert.equal(TupleUtils.isTick(testTickTuple(5)), true);
    assert.deepEqual(testTickTuple(5).getValues(), [5]);
  });

  it('a bolt run against a capturing collector: emits with their anchors, acks, and ticks ignored', () => {
    const bolt = new ExclamationBolt();
    const out = new CapturingOutputCollector();
    bolt.prepare({}, testContext({ component: 'exclaim1' }), out);
    const input = testTuple(['nathan'], { component: 'word', fields: ['word'] });
    bolt.execute(input);
    bolt.execute(testTickTuple());
    assert.deepEqual(out.valuesOn('default'), [['nathan!!!']]);
    assert.deepEqual(out.emitted[0]!.anchors, [input]);
    assert.deepEqual(out.acked, [input]);
  });

  it('capturing collectors take Storm\'s forms and refuse what the runtime refuses, values too when given the topology', () => {
    const spout = new CapturingSpoutOutputCollector();
    spout.emit(['a'], 'id-1');
    spout.emit('odd', [1], 'id-2');
    assert.deepEqual(spout.emitted.map((e) => [e.stream, e.messageId]), [
      ['default', 'id-1'],
      ['odd', 'id-2'],
    ]);
    const basic = new CapturingBasicOutputCollector();
    const input = testTuple(['x']);
    basic.forInput(input).emit('side', [1]);
    assert.deepEqual(basic.emitted[0]!.anchors, [input]);
    const untyped = new CapturingOutputCollector().emit as (...a: unknown[]) => number[];
    assert.throws(() => untyped('odd'), /none of its forms/);
    const b = new TopologyBuilder();
    b.setSpout('s', () => new S());
    b.registerSerialization(Point);
    const checked = new CapturingOutputCollector({ topology: b.createTopology() });
    checked.emit([new Point(1)]);
    class Other {}
    assert.throws(() => checked.emit([new Other()]), (e: unknown) => (e as { code?: string }).code === 'HSTORM_ERR_TOPOLOGY_EMIT' && /class Other, which is not registered/.test((e as Error).message));
  });

  it('testContext answers Storm\'s getters from the topology, records logs and metrics, and delivers signals by hand', () => {
    const t = topology();
    const ctx = testContext({ topology: t, component: 'b' });
    assert.equal(ctx.getThisComponentId(), 'b');
    assert.deepEqual(ctx.getComponentTasks('s'), [1, 2]);
    assert.equal(ctx.getThisTaskId(), 4);
    assert.deepEqual([...ctx.getThisSources()].map(([id]) => `${id.componentId}/${id.streamId}`), ['s/default']);
    ctx.log.info({ a: 1 }, 'hello');
    assert.deepEqual(ctx.logged, [{ level: 'info', obj: { a: 1 }, msg: 'hello' }]);
    ctx.registerCounter('seen').inc(3);
    assert.equal(ctx.metricsNow().counters.seen, 3);
    const got: unknown[] = [];
    ctx.onSignal('gamma', (s) => got.push(s.value));
    ctx.deliverSignal('gamma', 0.7);
    assert.deepEqual(got, [0.7]);
    assert.equal(testContext().getThisComponentId(), 'component');
    class Splitter extends BasicBolt {
      execute(tuple: Tuple, c: BasicOutputCollector): void {
        for (const w of tuple.getString(0).split(' ')) c.emit([w]);
      }
    }
    const out = new CapturingBasicOutputCollector();
    const s = testTuple(['a b']);
    new Splitter().execute(s, out.forInput(s));
    assert.deepEqual(out.valuesOn(), [['a'], ['b']]);
  });
});
