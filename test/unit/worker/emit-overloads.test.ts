/** The executors' collectors take Storm's emit overloads: the tuple goes on the stream the call names, anchored as asked. */
import assert from 'node:assert/strict';
import { BasicBolt, Bolt, Spout, type BasicOutputCollector, type Conf, type OutputCollector, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple } from '../../../topology-sdk/index.js';
import { TopologyBuilder } from '../../../topology-sdk/topology-builder.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { BoltExecutor } from '../../../worker/executor/bolt-executor.js';
import { SpoutExecutor } from '../../../worker/executor/spout-executor.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { componentSettings } from '../../../worker/worker-settings.js';
import { withDefaults } from '../../../common/config/index.js';
import { FakeHost } from '../../helpers/fake-host.js';

class Src extends Spout {
  collector!: SpoutOutputCollector;
  override open(_c: Conf, _x: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w', 'a', 'b']);
    d.declareStream('odd', ['w', 'a', 'b']);
  }
}

class Rich extends Bolt {
  collector!: OutputCollector;
  override prepare(_c: Conf, _x: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }
  execute(): void {}
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w', 'a', 'b']);
    d.declareStream('odd', ['w', 'a', 'b']);
  }
}

class Basic extends BasicBolt {
  execute(t: Tuple, c: BasicOutputCollector): void {
    c.emit('odd', [t.getValue(0), 1, 2]);
  }
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w', 'a', 'b']);
    d.declareStream('odd', ['w', 'a', 'b']);
  }
}

function setup() {
  const b = new TopologyBuilder();
  b.setSpout('src', () => new Src());
  b.setBolt('rich', () => new Rich()).shuffleGrouping('src').shuffleGrouping('src', 'odd');
  b.setBolt('basic', () => new Basic()).shuffleGrouping('src');
  b.setBolt('sink', () => new Basic()).shuffleGrouping('rich').shuffleGrouping('rich', 'odd').shuffleGrouping('basic', 'odd');
  const topo = b.createTopology({ 'topology.acker.executors': 0 });
  const host = new FakeHost(topo.def);
  const settings = componentSettings(withDefaults({}));
  return { host, settings };
}

describe('worker: Storm emit overloads through the executors', () => {
  it("a bolt's emit('odd', values) goes on stream odd; emit(anchor, values) and emit(stream, anchors, values) anchor", async () => {
    const { host, settings } = setup();
    const rich = new Rich();
    const ex = new BoltExecutor(host, 'rich', 2, settings, rich);
    await ex.start();
    const input = new RuntimeTuple(['x', 0, 0], new Fields(['w', 'a', 'b']), 'src', 'default', 1, [7, 0, 11, 0]);
    rich.collector.emit('odd', ['w', 1, 2]);
    rich.collector.emit(input, ['w', 1, 2]);
    rich.collector.emit('odd', [input], ['w', 1, 2]);
    rich.collector.emit(['w', 1, 2], { stream: 'odd', anchors: input });
    assert.deepEqual(host.sent.map((s) => [s.stream, s.values, s.anchors === null ? null : s.anchors[0]]), [
      ['odd', ['w', 1, 2], null],
      ['default', ['w', 1, 2], 7],
      ['odd', ['w', 1, 2], 7],
      ['odd', ['w', 1, 2], 7],
    ]);
    const untyped = rich.collector.emit as (...args: unknown[]) => number[];
    assert.throws(() => untyped('odd'), { code: 'HSTORM_ERR_TOPOLOGY_EMIT' });
    assert.throws(() => rich.collector.emit([{ not: 'a tuple' } as unknown as Tuple], ['w', 1, 2]), /none of its forms/);
    assert.throws(() => rich.collector.emit(['w', 1, 2], { anchors: { values: [] } as unknown as Tuple }), /options.anchors must be a tuple|anchor 0 is not a tuple the bolt received/);
  });

  it("a basic bolt's emit('odd', values) goes on stream odd, anchored to its input", async () => {
    const { host, settings } = setup();
    const ex = new BoltExecutor(host, 'basic', 3, settings, new Basic());
    await ex.start();
    ex.queue.push(new RuntimeTuple(['w', 0, 0], new Fields(['w', 'a', 'b']), 'src', 'default', 1, [5, 0, 6, 0]));
    ex.runSlice(performance.now() + 1000);
    assert.deepEqual(host.sent.map((s) => [s.stream, s.values, s.anchors?.[0]]), [['odd', ['w', 1, 2], 5]]);
  });

  it("a spout's emit(values, messageId) and emit(streamId, values, messageId) track the message", async () => {
    const { host, settings } = setup();
    const src = new Src();
    const ex = new SpoutExecutor(host, 'src', 1, settings, src);
    await ex.start();
    src.collector.emit(['w', 1, 2], 'm1');
    src.collector.emit('odd', ['w', 1, 2], 'm2');
    src.collector.emit('odd', ['w', 1, 2]);
    assert.deepEqual(host.sent.map((s) => s.stream), ['default', 'default', 'odd', 'odd']);
    const untyped = src.collector.emit as (...args: unknown[]) => number[];
    assert.throws(() => untyped('odd'), /emit from "src" was called as emit\("odd"\)/);
    await ex.stop();
  });
});
