/**
 * hstorm/testing's FeederSpout without a cluster: the test's end connected to a directory as
 * LocalCluster.submitTopology connects it, and its tasks made as a worker makes them — what is fed reaches the tasks
 * (each of n tasks its every n-th tuple, with the message id), values keep their types, acks and fails come back to
 * the delegate, a restarted task goes on after its last tuple, and a task with no test to feed it refuses to open.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Fields, Values, type Spout } from 'hstorm';
import { CapturingSpoutOutputCollector, FeederSpout, FeederNotConnectedError, testContext } from 'hstorm/testing';
import { CONNECT_LOCAL, NEW_TASK } from '../../../topology-sdk/internal/component-source.js';
import { makeTempDir, removeTempDir } from '../../../common/temp-dirs.js';
import { waitFor } from '../../helpers/wait-for.js';

describe('hstorm/testing FeederSpout', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await makeTempDir('hstorm-feeder-test-');
  });
  afterEach(() => removeTempDir(dir));

  /** Connects `feeder` as component `id` (as LocalCluster.submitTopology does); returns the config its tasks get. */
  function connect(feeder: FeederSpout, id = 'feed'): Record<string, unknown> {
    return feeder[CONNECT_LOCAL]({ componentId: id, dir: join(dir, id), serializations: [] });
  }

  /** Task `index` of `tasks`, opened with `conf`. */
  function task(feeder: FeederSpout, conf: Record<string, unknown>, index = 0, tasks = 1): { spout: Spout; out: CapturingSpoutOutputCollector } {
    const spout = feeder[NEW_TASK]();
    const out = new CapturingSpoutOutputCollector();
    const ids = Array.from({ length: tasks }, (_x, i) => 10 + i);
    const ctx = { ...testContext({ component: 'feed', task: ids[index]! }), componentTasks: ids, taskIndex: index };
    void spout.open(conf, ctx, out);
    return { spout, out };
  }

  const pump = (spout: Spout, n: number) => {
    for (let i = 0; i < n; i++) void spout.nextTuple();
  };

  it('hands what is fed — before and after it is connected — to its tasks, every n-th tuple to each, with the message ids; values keep their types', () => {
    const feeder = new FeederSpout(new Fields('id', 'tags'));
    feeder.feed([0, new Map([['a', 1]])], 'm0'); // before connecting: kept and written when connected
    const conf = connect(feeder);
    for (let i = 1; i < 6; i++) feeder.feed(new Values(i, new Set([i])), `m${i}`);
    feeder.feed([6, null]); // a random UUID as its message id, as Storm's
    const a = task(feeder, conf, 0, 2);
    const b = task(feeder, conf, 1, 2);
    pump(a.spout, 10);
    pump(b.spout, 10);
    assert.deepEqual(
      a.out.emitted.map((e) => [e.values[0], e.messageId]),
      [
        [0, 'm0'],
        [2, 'm2'],
        [4, 'm4'],
        [6, a.out.emitted[3]!.messageId],
      ],
    );
    assert.match(String(a.out.emitted[3]!.messageId), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    assert.deepEqual(
      b.out.emitted.map((e) => [e.values[0], e.messageId]),
      [
        [1, 'm1'],
        [3, 'm3'],
        [5, 'm5'],
      ],
    );
    assert.ok(a.out.emitted[0]!.values[1] instanceof Map, 'a Map arrives as a Map');
    assert.ok(b.out.emitted[0]!.values[1] instanceof Set, 'a Set as a Set');
    const declared: string[][] = [];
    a.spout.declareOutputFields({ declare: (f: readonly string[]) => declared.push([...f]) } as never);
    assert.deepEqual(declared, [['id', 'tags']]);
  });

  it('tells the delegate of every ack and fail, once each, with the message id', async () => {
    const feeder = new FeederSpout(['n']);
    const acked: unknown[] = [];
    const failed: unknown[] = [];
    feeder.setAckFailDelegate({ ack: (id) => acked.push(id), fail: (id) => failed.push(id) });
    const conf = connect(feeder);
    const t = task(feeder, conf);
    for (let i = 0; i < 4; i++) feeder.feed([i], { n: i });
    pump(t.spout, 4);
    t.spout.ack({ n: 0 });
    t.spout.fail({ n: 1 });
    t.spout.ack({ n: 3 });
    await waitFor('the fates to come back', () => acked.length + failed.length === 3, 30_000, 10);
    assert.deepEqual(acked, [{ n: 0 }, { n: 3 }]);
    assert.deepEqual(failed, [{ n: 1 }]);
  });

  it('a restarted task goes on after the last tuple it emitted (nothing twice, nothing skipped)', () => {
    const feeder = new FeederSpout(['n']);
    const conf = connect(feeder);
    for (let i = 0; i < 6; i++) feeder.feed([i], i);
    const first = task(feeder, conf);
    pump(first.spout, 2);
    void first.spout.close();
    const again = task(feeder, conf);
    pump(again.spout, 10);
    assert.deepEqual([...first.out.emitted, ...again.out.emitted].map((e) => e.values[0]), [0, 1, 2, 3, 4, 5]);
  });

  it('refuses a feed that does not fit its fields, and a task with no test connected to it', () => {
    const feeder = new FeederSpout(['a', 'b']);
    assert.throws(() => feeder.feed([1]), /1 values for the 2 fields it declares \(a, b\)/);
    connect(feeder);
    assert.throws(() => feeder.feed([1, () => 2], 'x'), /value 1 is a function, which cannot travel/);
    assert.throws(
      () => task(feeder, {}),
      (e: unknown) => e instanceof FeederNotConnectedError && e.code === 'HSTORM_ERR_TESTING_FEEDER' && /FeederSpout "feed" has no test to feed it: .*LocalCluster\.submitTopology/.test(e.message),
    );
  });
});
