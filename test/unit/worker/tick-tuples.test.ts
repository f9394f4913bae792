/**
 * Tick tuples (topology.tick.tuple.freq.secs) through a bolt executor, on a manual clock: delivered from __system on
 * __tick with the period as value, queued behind data, counted apart, never tracked (acking, failing or anchoring to
 * one is harmless), for bolts and basic bolts; and where the period comes from (topology, addConfiguration,
 * getComponentConfiguration).
 */
import assert from 'node:assert/strict';
import { BasicBolt, Bolt, Constants, Spout, TupleUtils, type BasicOutputCollector, type Conf, type OutputCollector, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from '../../../topology-sdk/index.js';
import { TopologyBuilder } from '../../../topology-sdk/topology-builder.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { BoltExecutor } from '../../../worker/executor/bolt-executor.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { ComponentConfigs, componentSettings } from '../../../worker/worker-settings.js';
import { withDefaults } from '../../../common/config/index.js';
import { ConfigError } from '../../../common/errors.js';
import { FakeHost } from '../../helpers/fake-host.js';
import { ManualClock } from '../../helpers/manual-clock.js';

class Src extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w']);
  }
}

/** Acks, fails and anchors to whatever it gets — ticks included, the user's mistake the runtime must absorb. */
class Careless extends Bolt {
  seen: Tuple[] = [];
  private c!: OutputCollector;
  override prepare(_conf: Conf, _ctx: TopologyContext, c: OutputCollector): void {
    this.c = c;
  }
  execute(t: Tuple): void {
    this.seen.push(t);
    this.c.emit(t, [TupleUtils.isTick(t) ? 'tick' : t.getString(0)]);
    if (TupleUtils.isTick(t)) this.c.fail(t);
    this.c.ack(t);
  }
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['out']);
  }
}

class Basic extends BasicBolt {
  seen: Tuple[] = [];
  execute(t: Tuple, c: BasicOutputCollector): void {
    this.seen.push(t);
    c.emit([t.isTick() ? 'tick' : 'data']);
  }
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['out']);
  }
}

/** Asks for ticks itself, as storm-starter's RollingCountBolt does. */
class Rolling extends BasicBolt {
  execute(): void {}
  override getComponentConfiguration(): Record<string, unknown> {
    return TupleUtils.putTickFrequencyIntoComponentConfig({}, 3);
  }
}

function build(config: Record<string, unknown> = {}) {
  const b = new TopologyBuilder();
  b.setSpout('src', () => new Src());
  b.setBolt('careless', () => new Careless()).shuffleGrouping('src');
  b.setBolt('basic', () => new Basic()).shuffleGrouping('src');
  b.setBolt('sink', () => new Basic()).shuffleGrouping('careless').shuffleGrouping('basic');
  return b.createTopology({ 'topology.acker.executors': 0, ...config });
}

const data = (w: string) => new RuntimeTuple([w], new Fields(['w']), 'src', 'default', 1, [41, 0, 43, 0]);

describe('worker: tick tuples', () => {
  it('reach a bolt every period from __system on __tick, behind the data already queued, and stop with the executor', async () => {
    const topo = build();
    const clock = new ManualClock();
    const host = Object.assign(new FakeHost(topo.def), { clock });
    const bolt = new Careless();
    const ex = new BoltExecutor(host, 'careless', 2, componentSettings(withDefaults({ 'topology.tick.tuple.freq.secs': 2 })), bolt);
    await ex.start();
    ex.queue.push(data('a'));
    await clock.advance(1999);
    assert.equal(ex.queue.length, 1, 'no tick before the period');
    await clock.advance(1);
    ex.queue.push(data('b'));
    ex.runSlice(performance.now() + 1000);
    assert.deepEqual(bolt.seen.map((t) => (t.isTick() ? 'tick' : t.getString(0))), ['a', 'tick', 'b']);
    const tick = bolt.seen[1]!;
    assert.equal(tick.getSourceComponent(), Constants.SYSTEM_COMPONENT_ID);
    assert.equal(tick.getSourceComponent(), '__system');
    assert.equal(tick.getSourceStreamId(), '__tick');
    assert.equal(tick.getSourceTask(), -1);
    assert.deepEqual(tick.getValues(), [2]);
    assert.equal(tick.getIntegerByField('rate_secs'), 2);
    assert.equal(TupleUtils.isTick(tick), true);
    assert.equal(TupleUtils.isTick(bolt.seen[0]), false);
    assert.equal(TupleUtils.isTick(null), false);
    await clock.advance(4000);
    assert.equal(ex.queue.length, 2, 'one tick per period');
    await ex.stop();
    await clock.advance(10_000);
    assert.equal(ex.queue.length, 2, 'no tick after stop');
  });

  it('counts ticks apart: not executed, acked or failed; acking, failing or anchoring to one tracks nothing', async () => {
    const topo = build();
    const clock = new ManualClock();
    const host = Object.assign(new FakeHost(topo.def), { clock });
    const bolt = new Careless();
    const ex = new BoltExecutor(host, 'careless', 2, componentSettings(withDefaults({ 'topology.tick.tuple.freq.secs': 1 })), bolt);
    await ex.start();
    await clock.advance(3000);
    ex.queue.push(data('a'));
    ex.runSlice(performance.now() + 1000);
    const m = ex.metrics.snapshot(0, 0);
    assert.equal(m.ticks, 3);
    assert.equal(m.executed, 1);
    assert.equal(m.acked, 1);
    assert.equal(m.failed, 0);
    assert.equal(m.executeLatencyMs.count, 1, 'ticks stay out of the execute latency');
    // The emits anchored to ticks are unanchored; the one anchored to the data tuple joins its tree.
    assert.deepEqual(host.sent.map((s) => [s.values[0], s.anchors === null ? null : s.anchors[0]]), [
      ['tick', null],
      ['tick', null],
      ['tick', null],
      ['a', 41],
    ]);
    await ex.stop();
  });

  it('reach a basic bolt, which is not acked for them; its emits while handling one are unanchored', async () => {
    const topo = build();
    const clock = new ManualClock();
    const host = Object.assign(new FakeHost(topo.def), { clock });
    const bolt = new Basic();
    const ex = new BoltExecutor(host, 'basic', 3, componentSettings(withDefaults({ 'topology.tick.tuple.freq.secs': 0.5 })), bolt);
    await ex.start();
    await clock.advance(500);
    ex.runSlice(performance.now() + 1000);
    assert.equal(bolt.seen.length, 1);
    assert.equal(ex.metrics.acked, 0);
    assert.equal(ex.metrics.ticks, 1);
    assert.deepEqual(host.sent.map((s) => [s.values, s.anchors]), [[['tick'], null]]);
    await ex.stop();
  });

  it('a bolt without the key gets none', async () => {
    const topo = build();
    const clock = new ManualClock();
    const host = Object.assign(new FakeHost(topo.def), { clock });
    const ex = new BoltExecutor(host, 'basic', 3, componentSettings(withDefaults({})), new Basic());
    await ex.start();
    await clock.advance(60_000);
    assert.equal(ex.queue.length, 0);
    await ex.stop();
  });
});

describe('topology: where a component\'s tick period comes from', () => {
  it('topology-wide, overridden per component by addConfiguration or getComponentConfiguration (addConfiguration winning)', () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Src());
    b.setBolt('plain', () => new Basic()).shuffleGrouping('src');
    b.setBolt('added', () => new Basic()).shuffleGrouping('src').addConfiguration('topology.tick.tuple.freq.secs', 1);
    b.setBolt('rolling', () => new Rolling()).shuffleGrouping('src');
    b.setBolt('both', () => new Rolling()).shuffleGrouping('src').addConfiguration('topology.tick.tuple.freq.secs', 7);
    const topo = b.createTopology({ 'topology.tick.tuple.freq.secs': 10 });
    const byId = Object.fromEntries(topo.def.components.map((c) => [c.id, c.config]));
    assert.deepEqual(byId.rolling, { 'topology.tick.tuple.freq.secs': 3 }, 'getComponentConfiguration is no longer ignored');
    assert.deepEqual(byId.both, { 'topology.tick.tuple.freq.secs': 7 });
    const configs = new ComponentConfigs(topo.def, topo.def.config, () => topo.def.config);
    assert.deepEqual(
      ['plain', 'added', 'rolling', 'both'].map((c) => configs.settingsOf(c).tick),
      [{ secs: 10, ms: 10_000 }, { secs: 1, ms: 1000 }, { secs: 3, ms: 3000 }, { secs: 7, ms: 7000 }],
    );
  });

  it('refuses a bad period from any of them, naming the key', () => {
    class Bad extends BasicBolt {
      execute(): void {}
      override getComponentConfiguration(): Record<string, unknown> {
        return { 'topology.tick.tuple.freq.secs': -1 };
      }
    }
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Src());
    b.setBolt('bad', () => new Bad()).shuffleGrouping('src');
    assert.throws(() => b.createTopology(), (e: unknown) => e instanceof ConfigError && e.key === 'topology.tick.tuple.freq.secs' && /component "bad" config/.test(e.message));
    assert.throws(() => build({ 'topology.tick.tuple.freq.secs': 'often' }), (e: unknown) => e instanceof ConfigError && /a number > 0, or null/.test(e.message));
  });
});
