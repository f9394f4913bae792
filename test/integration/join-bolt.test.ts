/**
 * storm-starter's JoinBoltExample in real worker processes (two workers, the spouts and the joiner apart): the test
 * feeds its FeederSpouts as the example does, and the JoinBolt's output is the ten records computed by hand; every
 * message id fed is acked exactly once (counted, not de-duplicated) and none fails.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { completeTopology } from '../../testing/index.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { ageSpout, genderSpout, generateAgeData, generateGenderData } from '../fixtures/storm-starter/join-bolt-example.js';

const EXAMPLE = join(PACKAGE_ROOT, 'dist/test/fixtures/storm-starter/join-bolt-example.js');

describe('JoinBolt: storm-starter JoinBoltExample (two worker processes)', function () {
  this.timeout(300_000);

  it('joins the fed gender and age records on id: the ten records computed by hand, every tuple acked once', async () => {
    const fates = new Map<unknown, string[]>();
    const delegate = (spout: string) => ({
      ack: (id: unknown) => fates.set(`${spout}:${String(id)}`, [...(fates.get(`${spout}:${String(id)}`) ?? []), 'ack']),
      fail: (id: unknown) => fates.set(`${spout}:${String(id)}`, [...(fates.get(`${spout}:${String(id)}`) ?? []), 'fail']),
    });
    genderSpout.setAckFailDelegate(delegate('gender'));
    ageSpout.setAckFailDelegate(delegate('age'));
    const fateCount = () => [...fates.values()].reduce((n, l) => n + l.length, 0);
    const run = completeTopology(EXAMPLE, {
      // All 20 tuples in one tumbling window (see the fixture), whatever this machine's speed.
      config: { 'topology.workers': 2, 'joinexample.window.count': 20 },
      until: (soFar) => soFar.readTuples('joiner').length >= 10 && fateCount() >= 20,
      timeoutMs: 240_000,
    });
    await Promise.all([genderSpout.waitForReader(120_000), ageSpout.waitForReader(120_000)]);
    // The example's order: the gender records, then the age records.
    generateGenderData(genderSpout);
    generateAgeData(ageSpout);
    const result = await run;

    const rows = (result.readTuples('joiner') as [number, number, string, number][]).sort((a, b) => a[0] - b[0]);
    assert.deepEqual(rows, [
      [0, 0, 'male', 20],
      [1, 1, 'female', 21],
      [2, 2, 'male', 22],
      [3, 3, 'female', 23],
      [4, 4, 'male', 24],
      [5, 5, 'female', 25],
      [6, 6, 'male', 26],
      [7, 7, 'female', 27],
      [8, 8, 'male', 28],
      [9, 9, 'female', 29],
    ]);
    assert.equal(fates.size, 20, 'twenty message ids, each a random UUID');
    for (const [id, fate] of fates) assert.deepEqual(fate, ['ack'], `${id}: acked exactly once, never failed`);
    assert.equal([...fates.keys()].filter((k) => String(k).startsWith('gender:')).length, 10);
    // The printer (a consumer lambda) emits nothing.
    assert.deepEqual(result.readTuples('printer'), []);
  });
});
