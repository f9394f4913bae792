/**
 * Stateful windows (Storm's BaseStatefulWindowedBolt), driven through the
 * executors the builder wraps them in — the stateful executor around the
 * message-id or the persistent windowing bolt — with a manual clock, a memory
 * store shared across "restarts" (a new executor on the same store is a worker
 * after kill -9) and hand-made checkpoint tuples.
 */
import assert from 'node:assert/strict';
import { Count, Duration, Spout, StatefulWindowedBolt, TopologyBuilder, type KeyValueState, type OutputCollector, type OutputFieldsDeclarer, type Tuple, type TupleWindow } from 'hstorm';
import { CHECKPOINT_COMPONENT, CHECKPOINT_STREAM, type TopologyDef } from '../../../common/topology-def.js';
import { buildConfig } from '../../../common/config/index.js';
import { MemoryStateStore } from '../../../common/state-store/index.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { StatefulBoltExecutor } from '../../../topology-sdk/internal/stateful-bolt-executor.js';
import { MessageIdWindowExecutor, PersistentWindowExecutor, statefulWindowedExecutor } from '../../../topology-sdk/internal/stateful-windowed-bolt-executor.js';
import { validateWindowBounds } from '../../../topology-sdk/validate-bounds.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { ManualClock } from '../../helpers/manual-clock.js';

/** Records each window's ids (from get(), or getIter() when `iterate`) and keeps a running total in its state. */
class Recorder extends StatefulWindowedBolt<KeyValueState<string, number>> {
  readonly windows: { ids: number[]; end: number }[] = [];
  state: KeyValueState<string, number> | null = null;
  iterate = false;
  getError: unknown = null;
  /** What the synchronous forms of getIter() said (they need the tuples in memory). */
  hasNextError: unknown = null;
  out!: OutputCollector;

  override prepare(_c: unknown, _ctx: unknown, out: OutputCollector): void {
    this.out = out;
  }

  initState(state: KeyValueState<string, number>): void {
    this.state = state;
  }

  async execute(w: TupleWindow): Promise<void> {
    const ids: number[] = [];
    if (this.iterate) {
      try {
        w.get();
      } catch (err) {
        this.getError = err;
      }
      try {
        w.getIter().hasNext();
      } catch (err) {
        this.hasNextError = err;
      }
      for await (const t of w.getIter()) ids.push(t.getIntegerByField('id'));
    } else {
      for (const t of w.get()) ids.push(t.getIntegerByField('id'));
    }
    this.windows.push({ ids, end: w.getEndTimestamp() });
    this.state!.put('total', this.state!.get('total', 0) + ids.length);
    this.out.emit([ids.length]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n']);
  }
}

const F = new Fields(['id', 'ts', 'payload']);
const CP = new Fields(['txid', 'action']);
let root = 1;
const tuple = (id: number, ts = 0) => new RuntimeTuple([id, ts, `p${id}`], F, 'src', 'default', 1, [root++, 0, 1, 0]);
const cp = (txid: number, action: string) => new RuntimeTuple([txid, action], CP, CHECKPOINT_COMPONENT, CHECKPOINT_STREAM, 9, [root++, 0, 1, 0]);
const ids = (ts: readonly Tuple[]) => ts.filter((t) => t.sourceStreamId === 'default').map((t) => t.getIntegerByField('id'));

const DEF: TopologyDef = {
  components: [
    { id: 'src', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['id', 'ts', 'payload'], direct: false }], inputs: [], gpu: null, config: {} },
    {
      id: 'win',
      kind: 'bolt',
      parallelism: 1,
      streams: [],
      inputs: [
        { component: 'src', stream: 'default', grouping: { type: 'shuffle' } },
        { component: CHECKPOINT_COMPONENT, stream: CHECKPOINT_STREAM, grouping: { type: 'all' } },
      ],
      gpu: null,
      config: {},
    },
    { id: CHECKPOINT_COMPONENT, kind: 'spout', parallelism: 1, streams: [{ id: CHECKPOINT_STREAM, fields: ['txid', 'action'], direct: false }], inputs: [], gpu: null, config: {} },
  ],
  config: {},
};

/** A worker's view of one `win` task on `store`: the stateful executor around the bolt's windowing executor. */
async function start(make: () => Recorder, store: MemoryStateStore, clock: ManualClock) {
  const bolt = make();
  const inner = statefulWindowedExecutor(bolt as never, { clock });
  const exec = new StatefulBoltExecutor(inner);
  const acked: Tuple[] = [];
  const failed: Tuple[] = [];
  const out: OutputCollector = { emit: () => [], emitDirect: () => undefined, ack: (t) => acked.push(t), fail: (t) => failed.push(t), resetTimeout: () => undefined, reportError: () => undefined };
  const ctx = fakeContext({ component: 'win', taskId: 3, tasks: [3], def: DEF, stateStore: store, tasksOf: (c) => (c === 'src' ? [1] : c === CHECKPOINT_COMPONENT ? [9] : []) });
  await exec.prepare({}, ctx, out);
  const feed = async (...ts: Tuple[]) => {
    for (const t of ts) await exec.execute(t);
  };
  const checkpoint = async (txid: number) => {
    await exec.execute(cp(txid, 'PREPARE'));
    await exec.execute(cp(txid, 'COMMIT'));
  };
  return { bolt, inner, exec, acked, failed, feed, checkpoint, init: (txid: number) => exec.execute(cp(txid, 'INITSTATE')) };
}

describe('StatefulWindowedBolt, withMessageIdField (windows in memory)', () => {
  const counting = () => new Recorder().withTumblingWindow(Count.of(3)).withMessageIdField('id');

  it('after a restart, drops replays it had let go and does not fire a window that fired before the last commit', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const a = await start(counting, store, clock);
    assert.ok(a.inner instanceof MessageIdWindowExecutor);
    await a.init(0);
    await a.feed(...[1, 2, 3, 4, 5, 6, 7].map((i) => tuple(i)));
    assert.deepEqual(a.bolt.windows.map((w) => w.ids), [[1, 2, 3], [4, 5, 6]]);
    assert.deepEqual(ids(a.acked), [], 'acks wait for the commit');
    await a.checkpoint(1);
    assert.deepEqual(ids(a.acked), [1, 2, 3, 4, 5, 6], 'what left its windows is acked at the commit; 7 is still held');
    await a.feed(tuple(8));
    // kill -9: a new task on the same store, and the spout replays everything not acked (and, to be sure, 1..6 again).
    const b = await start(counting, store, clock);
    await b.init(1);
    assert.equal(b.bolt.state!.get('total'), 6, 'the bolt\'s own state is the commit\'s');
    await b.feed(...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => tuple(i)));
    assert.deepEqual(b.bolt.windows.map((w) => w.ids), [[7, 8, 9]], 'only the window that had not fired');
    await b.checkpoint(2);
    assert.deepEqual(ids(b.acked), [1, 2, 3, 4, 5, 6, 7, 8, 9], 'the dropped replays are acked');
  });

  it('a window that fired after the last commit fires again (at least once)', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const a = await start(counting, store, clock);
    await a.init(0);
    await a.feed(tuple(1), tuple(2), tuple(3));
    await a.checkpoint(1);
    await a.feed(tuple(4), tuple(5), tuple(6));
    assert.equal(a.bolt.windows.length, 2);
    const b = await start(counting, store, clock);
    await b.init(1);
    await b.feed(tuple(4), tuple(5), tuple(6));
    assert.deepEqual(b.bolt.windows.map((w) => w.ids), [[4, 5, 6]]);
  });

  it("a sliding count window keeps the crash-free grid after a restart, at every commit and crash point (storm-starter's StatefulWindowingTopology: Count(5), Count(3))", async () => {
    const sliding = () => new Recorder().withWindow(Count.of(5), Count.of(3)).withMessageIdField('id');
    const N = 40;
    const all = Array.from({ length: N }, (_, i) => i);
    // The crash-free run: every window, in order.
    const clean = await start(sliding, new MemoryStateStore(), new ManualClock(0));
    await clean.init(0);
    await clean.feed(...all.map((i) => tuple(i)));
    const want = clean.bolt.windows.map((w) => w.ids.join(','));
    assert.deepEqual(want.slice(0, 3), ['0,1,2', '1,2,3,4,5', '4,5,6,7,8']);
    for (let commitAt = 1; commitAt < N - 6; commitAt += 2) {
      for (const crashAt of [commitAt + 1, commitAt + 3, commitAt + 5]) {
        const store = new MemoryStateStore();
        const clock = new ManualClock(0);
        const a = await start(sliding, store, clock);
        await a.init(0);
        await a.feed(...all.slice(0, commitAt).map((i) => tuple(i)));
        await a.checkpoint(1);
        const firedBeforeCommit = a.bolt.windows.length;
        await a.feed(...all.slice(commitAt, crashAt).map((i) => tuple(i)));
        // kill -9, and a spout that resumes from what was never acked, in order (a worker holding both restarted).
        const acked = new Set(ids(a.acked));
        const b = await start(sliding, store, clock);
        await b.init(1);
        await b.feed(...all.filter((i) => !acked.has(i)).map((i) => tuple(i)));
        const got = [...a.bolt.windows.slice(0, firedBeforeCommit), ...b.bolt.windows].map((w) => w.ids.join(','));
        // Windows fired after the commit and before the crash fire again (at least once): the same windows.
        assert.deepEqual(got, want, `commit after ${commitAt} tuples, crash after ${crashAt}: the windows of the restarted run`);
        assert.deepEqual(a.bolt.windows.slice(firedBeforeCommit).map((w) => w.ids.join(',')), want.slice(firedBeforeCommit, a.bolt.windows.length), 'what fired before the crash was the crash-free grid too');
      }
    }
  });

  it('in event time, knows a window by its end: the same window does not fire twice, the next one does', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const eventTime = () => new Recorder().withWindow(Duration.ofMillis(20), Duration.ofMillis(10)).withTimestampField('ts').withWatermarkInterval(Duration.ofMillis(100)).withMessageIdField('id');
    const a = await start(eventTime, store, clock);
    await a.init(0);
    await a.feed(tuple(1, 1), tuple(2, 5), tuple(3, 12), tuple(4, 25));
    await clock.advance(100);
    assert.deepEqual(a.bolt.windows.map((w) => [w.end, w.ids]), [[10, [1, 2]], [20, [1, 2, 3]]]);
    await a.checkpoint(1);
    const b = await start(eventTime, store, clock);
    await b.init(1);
    await b.feed(tuple(1, 1), tuple(2, 5), tuple(3, 12), tuple(4, 25), tuple(5, 41));
    await clock.advance(100);
    assert.deepEqual(b.bolt.windows.map((w) => [w.end, w.ids]), [[30, [3, 4]], [40, [4]]], 'windows ending at 10 and 20 are not fired again');
  });

  it('a rollback fails what the window holds, and starts it again from the commit', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const a = await start(counting, store, clock);
    await a.init(0);
    await a.feed(tuple(1), tuple(2), tuple(3), tuple(4));
    await a.checkpoint(1);
    await a.feed(tuple(5), tuple(6), tuple(7));
    await a.exec.execute(cp(2, 'ROLLBACK'));
    assert.deepEqual(ids(a.failed).sort(), [4, 5, 6, 7], 'held by the window or acked since the commit: failed, to be replayed');
    await a.exec.execute(cp(1, 'INITSTATE'));
    await a.feed(tuple(4), tuple(5), tuple(6), tuple(7));
    assert.deepEqual(a.bolt.windows.map((w) => w.ids), [[1, 2, 3], [4, 5, 6], [4, 5, 6]], 'the window of 4-6 fired after the commit, so again');
    assert.equal(a.bolt.state!.get('total'), 6, 'the bolt\'s state rolled back too, then counted 4-6 once more');
  });

  it('fails a tuple whose message id is not a whole number, naming the field', async () => {
    const a = await start(counting, new MemoryStateStore(), new ManualClock(0));
    await a.init(0);
    const bad = new RuntimeTuple(['x', 0, ''], F, 'src', 'default', 1, [root++, 0, 1, 0]);
    await assert.rejects(async () => a.exec.execute(bad), (err: unknown) => {
      assert.equal((err as { code: string }).code, 'HSTORM_ERR_WORKER_WINDOW_MESSAGE_ID');
      assert.match((err as Error).message, /message id field "id" of a tuple from src:default is "x"/);
      return true;
    });
  });
});

describe('StatefulWindowedBolt, withPersistence (windows in the state store)', () => {
  it('acks each tuple at the commit after it arrived, and rebuilds the window from the store after a restart', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const persistent = () => new Recorder().withTumblingWindow(Count.of(5)).withPersistence();
    const a = await start(persistent, store, clock);
    assert.ok(a.inner instanceof PersistentWindowExecutor);
    await a.init(0);
    await a.feed(...[1, 2, 3, 4, 5, 6, 7].map((i) => tuple(i)));
    assert.deepEqual(a.bolt.windows.map((w) => w.ids), [[1, 2, 3, 4, 5]]);
    await a.checkpoint(1);
    assert.deepEqual(ids(a.acked), [1, 2, 3, 4, 5, 6, 7], 'all acked: 6 and 7 are in the store');
    await a.feed(tuple(8)); // not committed: lost with the worker, replayed by its spout
    const b = await start(persistent, store, clock);
    await b.init(1);
    await b.feed(tuple(8), tuple(9), tuple(10));
    assert.deepEqual(b.bolt.windows.map((w) => w.ids), [[6, 7, 8, 9, 10]], 'the window held 6 and 7 across the restart');
  });

  it('a window larger than withMaxEventsInMemory is read with getIter, a partition at a time, across partitions and a restart', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const big = () => {
      const r = new Recorder().withTumblingWindow(Count.of(2500)).withPersistence().withMaxEventsInMemory(100);
      r.iterate = true;
      return r;
    };
    const a = await start(big, store, clock);
    await a.init(0);
    for (let i = 0; i < 1800; i++) await a.feed(tuple(i));
    await a.checkpoint(1);
    const b = await start(big, store, clock);
    await b.init(1);
    for (let i = 1800; i < 2500; i++) await b.feed(tuple(i));
    assert.equal(b.bolt.windows.length, 1);
    assert.deepEqual(b.bolt.windows[0]!.ids, Array.from({ length: 2500 }, (_, i) => i));
    assert.match(String(b.bolt.getError), /holds 2500 tuples, more than withMaxEventsInMemory \(100\): read it with `for await/);
    assert.match(String(b.bolt.hasNextError), /holds 2500 tuples, more than withMaxEventsInMemory \(100\), and is read back from the state store as it goes: iterate it with `for await/);
  });

  it('in event time, rebuilds both what was released and what waited for the watermark', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    const eventTime = () => new Recorder().withTumblingWindow(Duration.ofMillis(10)).withTimestampField('ts').withLag(Duration.ofMillis(5)).withWatermarkInterval(Duration.ofMillis(100)).withPersistence();
    const a = await start(eventTime, store, clock);
    await a.init(0);
    await a.feed(tuple(1, 1), tuple(2, 12), tuple(3, 14), tuple(4, 21));
    await clock.advance(100); // watermark 21 − 5 = 16: window [0,10) fires; 2 and 3 released; 4 waits
    assert.deepEqual(a.bolt.windows.map((w) => [w.end, w.ids]), [[10, [1]]]);
    await a.checkpoint(1);
    const b = await start(eventTime, store, clock);
    await b.init(1);
    await b.feed(tuple(5, 33));
    await clock.advance(100); // watermark 28: [10,20) fires with 2 and 3 from the store; 4 (21) still waits
    await clock.advance(100);
    assert.deepEqual(b.bolt.windows.map((w) => [w.end, w.ids]), [[20, [2, 3]]]);
  });

  it('a failed window fails the next prepare, so the topology rolls back and evaluates it again', async () => {
    const store = new MemoryStateStore();
    const clock = new ManualClock(0);
    class Flaky extends Recorder {
      fails = 1;
      override async execute(w: TupleWindow): Promise<void> {
        if (this.fails-- > 0) throw new Error('boom');
        await super.execute(w);
      }
    }
    const a = await start(() => new Flaky().withTumblingWindow(Count.of(2)).withPersistence(), store, clock);
    await a.init(0);
    await a.checkpoint(1);
    await a.feed(tuple(1), tuple(2));
    const prepare = cp(2, 'PREPARE');
    await a.exec.execute(prepare);
    assert.ok(a.failed.includes(prepare), 'the prepare failed');
    await a.exec.execute(cp(2, 'ROLLBACK'));
    await a.exec.execute(cp(1, 'INITSTATE'));
    await a.feed(tuple(1), tuple(2)); // the replays of the failed acks
    assert.deepEqual(a.bolt.windows.map((w) => w.ids), [[1, 2]]);
  });
});

describe('StatefulWindowedBolt in the builder and at submit', () => {
  class Src extends Spout {
    nextTuple(): void {}
    declareOutputFields(d: OutputFieldsDeclarer): void {
      d.declare(['id', 'ts', 'payload']);
    }
  }

  it('records the state in the definition, and refuses a window with neither a message id field nor persistence', () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Src(), 1);
    b.setBolt('mem', () => new Recorder().withTumblingWindow(Count.of(3)).withMessageIdField('id'), 1).shuffleGrouping('src');
    b.setBolt('store', () => new Recorder().withTumblingWindow(Duration.ofHours(1)).withPersistence().withMaxEventsInMemory(50_000), 1).shuffleGrouping('src');
    const t = b.createTopology();
    const by = new Map(t.def.components.map((c) => [c.id, c]));
    assert.deepEqual(by.get('mem')!.state, { messageIdField: 'id', maxEventsInMemory: null });
    assert.deepEqual(by.get('store')!.state, { messageIdField: null, maxEventsInMemory: 50_000 });
    assert.ok(by.get('store')!.window, 'the window is in the definition too');
    // An hour-long persistent window holds no tuple unacked: no timeout check. The in-memory one adds the checkpoint interval.
    validateWindowBounds(t.def, buildConfig([], { allowUserKeys: true }));
    const bad = new TopologyBuilder();
    bad.setSpout('src', () => new Src(), 1);
    bad.setBolt('w', () => new Recorder().withTumblingWindow(Count.of(3)), 1).shuffleGrouping('src');
    assert.throws(() => bad.createTopology(), (err: unknown) => {
      assert.equal((err as { code: string }).code, 'HSTORM_ERR_TOPOLOGY_STATE');
      assert.match((err as Error).message, /component "w": a StatefulWindowedBolt keeps its windows in memory unless withPersistence\(\) is called, and then needs withMessageIdField/);
      return true;
    });
  });

  it('counts the checkpoint interval in how long an in-memory stateful window holds a tuple', () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Src(), 1);
    b.setBolt('w', () => new Recorder().withWindow(Duration.ofSeconds(20), Duration.ofSeconds(5)).withMessageIdField('id'), 1).shuffleGrouping('src');
    const t = b.createTopology();
    assert.throws(
      () => validateWindowBounds(t.def, buildConfig([{ 'topology.message.timeout.secs': 27, 'topology.state.checkpoint.interval.ms': 3000 }], { allowUserKeys: true })),
      /holds a tuple up to 28 s \(length 20 s \+ slide 5 s \+ checkpoint interval 3 s\)/,
    );
  });
});
