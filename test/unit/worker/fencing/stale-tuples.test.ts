/**
 * Stale tuples (worker/fencing/stale-tuples.ts, issue 28 item 3), on a manual
 * clock: the frame's tree time never makes a tuple older than it is, however
 * far the receiver's clock is from the sender's; a bolt drops tracked tuples
 * whose tree started longer ago than the message timeout plus the margin,
 * counts them and executes the rest; emits carry their tree's start onward.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NO_TREE_START, NO_TREE_TIME, msOfTreeStart, treeStartFromField, treeStartOf, treeTimeField } from '../../../../worker/transport/frame-tree-time.js';
import { StaleTuples } from '../../../../worker/fencing/stale-tuples.js';
import { BasicBolt, Bolt, Spout, type BasicOutputCollector, type OutputCollector, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple } from '../../../../topology-sdk/index.js';
import { TopologyBuilder } from '../../../../topology-sdk/topology-builder.js';
import { Fields } from '../../../../topology-sdk/fields.js';
import { BoltExecutor } from '../../../../worker/executor/bolt-executor.js';
import { SpoutExecutor } from '../../../../worker/executor/spout-executor.js';
import { RuntimeTuple } from '../../../../worker/executor/runtime-tuple.js';
import { componentSettings } from '../../../../worker/worker-settings.js';
import { withDefaults } from '../../../../common/config/index.js';
import { silentLogger } from '../../../../common/logger.js';
import { FakeHost } from '../../../helpers/fake-host.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const NINE_HOURS = 9 * 3600 * 1000;
const TIMEOUT = 5000;
const MARGIN = 2000;

function staleAt(clock: ManualClock, marginMs: number | null = MARGIN): StaleTuples {
  return new StaleTuples({ messageTimeoutMs: TIMEOUT, marginMs, now: () => clock.now() }, silentLogger());
}

class Relay extends BasicBolt {
  executed: unknown[] = [];
  execute(t: Tuple, c: BasicOutputCollector): void {
    this.executed.push(t.getValue(0));
    c.emit([t.getValue(0)]);
  }
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n']);
  }
}

/** Emits once it holds three tuples, anchored to all three. */
class Joiner extends Bolt {
  private collector!: OutputCollector;
  private readonly held: Tuple[] = [];
  override prepare(_c: Conf, _x: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }
  execute(t: Tuple): void {
    this.held.push(t);
    if (this.held.length === 3) this.collector.emit(this.held, [0]);
  }
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n']);
  }
}

class Ids extends Spout {
  collector!: SpoutOutputCollector;
  override open(_c: Conf, _x: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n']);
  }
}

/** A host with an acker task elsewhere (so a spout tracks what it emits) and the rule on a manual clock. */
class AckingHost extends FakeHost {
  override ackerFor(): number | null {
    return 99;
  }
}

function setup(clock: ManualClock) {
  const b = new TopologyBuilder();
  b.setSpout('ids', () => new Ids());
  b.setBolt('relay', () => new Relay()).shuffleGrouping('ids');
  b.setBolt('sink', () => new Relay()).shuffleGrouping('relay');
  const topo = b.createTopology({ 'topology.acker.executors': 0 });
  const host = new AckingHost(topo.def);
  host.clock = clock;
  host.staleTuples = staleAt(clock);
  return { host, settings: componentSettings(withDefaults({})) };
}

const fields = new Fields(['n']);
/** A tracked tuple whose tree started at wall-clock `startedMs`. */
function tracked(n: number, startedMs: number): RuntimeTuple {
  const t = new RuntimeTuple([n], fields, 'ids', 'default', 1, [n, 0, n + 100, 0]);
  t.treeStart = treeStartOf(startedMs);
  return t;
}

describe('stale tuples (issue 28 item 3)', () => {
  it("a tree start, and the frame's tree time read back on any clock up to 9 h behind or ahead, is no earlier than the start and within a second of it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_600_000_000_000, max: 2_500_000_000_000 }), fc.integer({ min: -NINE_HOURS, max: NINE_HOURS }), (startMs, skew) => {
        const start = treeStartOf(startMs);
        assert.ok(msOfTreeStart(start) >= startMs && msOfTreeStart(start) < startMs + 1000);
        assert.ok(Number.isInteger(start) && start < 2 ** 30, 'a small integer: no boxed number per tuple');
        assert.equal(treeStartFromField(treeTimeField(start), startMs + skew), start, `receiver ${skew} ms off`);
      }),
    );
    assert.equal(treeTimeField(NO_TREE_START), NO_TREE_TIME);
    assert.equal(treeTimeField(-1), NO_TREE_TIME);
    assert.equal(treeStartFromField(NO_TREE_TIME, 1_764_110_000_000), NO_TREE_START);
  });

  it('the cutoff is the message timeout plus the margin behind the clock, and never with the margin null', async () => {
    const clock = new ManualClock(1_764_110_000_000);
    const s = staleAt(clock);
    // In tree starts (seconds): a tree that started 7 s or less ago is not below it, one that started 8 s ago is.
    assert.ok(treeStartOf(clock.now() - TIMEOUT - MARGIN) >= s.cutoff());
    assert.ok(treeStartOf(clock.now() - TIMEOUT - MARGIN - 1000) < s.cutoff());
    await clock.advance(1000);
    assert.ok(treeStartOf(clock.now() - TIMEOUT - MARGIN - 1000) < s.cutoff());
    assert.equal(staleAt(clock, null).cutoff(), -Infinity);
    s.drop(3, clock.now() - 9000, { from: 6700 });
    s.drop(1, clock.now() - 8000, { from: 6700 });
    assert.equal(s.dropped, 4);
  });

  it('a bolt drops tracked tuples whose tree started before the cutoff, counts them, and executes fresh and untracked ones', async () => {
    const clock = new ManualClock(1_764_110_000_000);
    const { host, settings } = setup(clock);
    const relay = new Relay();
    const ex = new BoltExecutor(host, 'relay', 2, settings, relay);
    await ex.start();
    const now = clock.now();
    ex.queue.push(tracked(1, now - TIMEOUT - MARGIN - 1000)); // past the cutoff (by its second): its spout has replayed it
    ex.queue.push(tracked(2, now - TIMEOUT)); // timed out, but within the margin: runs
    ex.queue.push(new RuntimeTuple([3], fields, 'ids', 'default', 1, null)); // untracked: never dropped
    ex.queue.push(tracked(4, now));
    ex.runSlice(performance.now() + 10_000);
    assert.deepEqual(relay.executed, [2, 3, 4]);
    assert.equal(ex.metrics.staleTuples, 1);
    assert.equal(ex.metrics.executed, 3);
    assert.equal(host.staleTuples!.dropped, 1);
    assert.equal(ex.metrics.snapshot(0, 0).staleTuples, 1, 'in the metrics record');

    // Time passes while a tuple waits in the queue: it turns stale there.
    ex.queue.push(tracked(5, clock.now()));
    await clock.advance(TIMEOUT + MARGIN + 1000);
    ex.runSlice(performance.now() + 10_000);
    assert.deepEqual(relay.executed, [2, 3, 4]);
    assert.equal(host.staleTuples!.dropped, 2);
  });

  it('with the margin null every tuple executes, however old (Storm)', async () => {
    const clock = new ManualClock(1_764_110_000_000);
    const { host, settings } = setup(clock);
    host.staleTuples = staleAt(clock, null);
    const relay = new Relay();
    const ex = new BoltExecutor(host, 'relay', 2, settings, relay);
    await ex.start();
    ex.queue.push(tracked(1, clock.now() - 3_600_000));
    ex.runSlice(performance.now() + 10_000);
    assert.deepEqual(relay.executed, [1]);
    assert.equal(host.staleTuples.dropped, 0);
  });

  it("a spout's tracked tuple carries its emit time; a bolt's emit inherits the oldest of its anchors' trees", async () => {
    const clock = new ManualClock(1_764_110_000_000);
    const { host, settings } = setup(clock);
    const ids = new Ids();
    const spout = new SpoutExecutor(host, 'ids', 1, settings, ids);
    await spout.start();
    ids.collector.emit([1], 'm1');
    ids.collector.emit([2]); // untracked
    assert.deepEqual(
      host.sent.map((s) => [s.values[0], s.treeStart]),
      [
        [1, treeStartOf(clock.now())],
        [2, NO_TREE_START],
      ],
    );

    host.sent.length = 0;
    const relay = new Relay();
    const ex = new BoltExecutor(host, 'relay', 2, settings, relay);
    await ex.start();
    ex.queue.push(tracked(7, clock.now() - 3000));
    ex.queue.push(new RuntimeTuple([8], fields, 'ids', 'default', 1, null));
    ex.runSlice(performance.now() + 10_000);
    assert.deepEqual(
      host.sent.map((s) => [s.values[0], s.treeStart]),
      [
        [7, treeStartOf(clock.now() - 3000)],
        [8, NO_TREE_START],
      ],
    );

    host.sent.length = 0;
    const joiner = new Joiner();
    const jx = new BoltExecutor(host, 'relay', 3, settings, joiner);
    await jx.start();
    jx.queue.push(tracked(1, clock.now() - 1000));
    jx.queue.push(tracked(2, clock.now() - 4000));
    jx.queue.push(new RuntimeTuple([3], fields, 'ids', 'default', 1, null));
    jx.runSlice(performance.now() + 10_000);
    // Anchored to all it has seen: the oldest of their trees' starts (an untracked anchor has none).
    assert.deepEqual(host.sent.map((s) => s.treeStart), [treeStartOf(clock.now() - 4000)]);
  });
});
