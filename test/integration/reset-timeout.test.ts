/**
 * OutputCollector.resetTimeout end to end, in two worker processes fed by FeederSpouts through
 * LocalCluster.submitTopology (Storm's way of running JoinBoltExample): a bolt that holds each tuple for 8 s, past
 * the 3 s message timeout, and resets its timeout on every tick sees every tree complete — its spout's message ids
 * each acked once — while the same bolt without the reset sees each one time out, failed once and never acked.
 */
import assert from 'node:assert/strict';
import { LocalCluster } from '../../testing/index.js';
import build, { plain, resetting } from '../fixtures/reset-timeout-topology.js';
import { waitFor } from '../helpers/wait-for.js';

describe('OutputCollector.resetTimeout (two worker processes)', function () {
  this.timeout(300_000);

  // One acker per worker (a spout's roots go to the acker beside it), and one acker for both (its resets to a spout in
  // the other worker cross the wire).
  for (const ackers of [null, 1]) {
    it(`keeps held tuple trees alive past the message timeout; without it they time out (topology.acker.executors ${ackers ?? 'one per worker'})`, async () => {
      const cluster = await LocalCluster.start();
      try {
        const fates = { resetting: new Map<unknown, string[]>(), plain: new Map<unknown, string[]>() };
        const record = (m: Map<unknown, string[]>, id: unknown, fate: string) => m.set(id, [...(m.get(id) ?? []), fate]);
        resetting.setAckFailDelegate({ ack: (id) => record(fates.resetting, id, 'ack'), fail: (id) => record(fates.resetting, id, 'fail') });
        plain.setAckFailDelegate({ ack: (id) => record(fates.plain, id, 'ack'), fail: (id) => record(fates.plain, id, 'fail') });
        await cluster.submitTopology('reset-timeout', ackers === null ? {} : { 'topology.acker.executors': ackers }, build({ config: {} }));
        await Promise.all([resetting.waitForReader(120_000), plain.waitForReader(120_000)]);
        const ids = [0, 1, 2, 3, 4];
        for (const i of ids) {
          resetting.feed([i], i);
          plain.feed([i], i);
        }
        const count = (m: Map<unknown, string[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
        await waitFor('every message id to be acked or failed', () => count(fates.resetting) >= ids.length && count(fates.plain) >= ids.length, 120_000, 100);
        assert.deepEqual([...fates.resetting.keys()].sort(), ids);
        for (const [id, f] of fates.resetting) assert.deepEqual(f, ['ack'], `resetting ${String(id)}: acked once, after 8 s held with a 3 s timeout`);
        assert.deepEqual([...fates.plain.keys()].sort(), ids);
        for (const [id, f] of fates.plain) assert.deepEqual(f, ['fail'], `plain ${String(id)}: timed out once`);
        await cluster.killTopology('reset-timeout');
      } finally {
        await cluster.shutdown();
      }
    });
  }
});
