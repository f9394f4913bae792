/**
 * Nimbus never queues rounds (issue 29): while a round waits on a store that
 * does not answer, each monitor tick is skipped and counted — by the reconcile
 * loop and by the metrics sampler — instead of queuing another round behind
 * it; once the store answers, an operator's verb waits for at most the round
 * in progress and the one tick that got in before the rest were skipped.
 * Store: in-memory, with reads held at a gate.
 */
import assert from 'node:assert/strict';
import type { ClusterState } from '../../../common/cluster-state.js';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { buildConfig } from '../../../common/config/index.js';
import { silentLogger } from '../../../common/logger.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { Nimbus } from '../../../nimbus/nimbus.js';
import { waitFor } from '../../helpers/wait-for.js';

/** A session whose reads wait while the gate is shut. */
function gated(session: ClusterState) {
  let open: Promise<void> = Promise.resolve();
  let release: () => void = () => undefined;
  const held = { reads: 0 };
  const wait = async <T>(read: () => Promise<T>): Promise<T> => {
    const gate = open;
    held.reads++;
    await gate;
    held.reads--;
    return read();
  };
  const state = new Proxy(session, {
    get(target, prop) {
      if (prop === 'get') return (...a: Parameters<ClusterState['get']>) => wait(() => target.get(...a));
      if (prop === 'children') return (...a: Parameters<ClusterState['children']>) => wait(() => target.children(...a));
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  }) as ClusterState;
  return {
    state,
    held,
    shut: () => {
      open = new Promise<void>((r) => (release = r));
    },
    reopen: () => release(),
  };
}

describe('nimbus monitor: skipped, never queued', () => {
  it('skips and counts the ticks that find the round still running, and answers a verb right after the store does', async () => {
    const store = new InMemoryClusterStore();
    const g = gated(store.session());
    const config = buildConfig([{ 'nimbus.monitor.freq.secs': 0.02, 'hstorm.local.dir': '/nonexistent-hstorm-test' }], { allowUserKeys: false });
    const nimbus = new Nimbus({ state: g.state, config, log: silentLogger(), blobDir: null });
    await nimbus.start();
    try {
      await waitFor('a few rounds', () => nimbus.readModel.nimbusHealth().monitor.count >= 3, 10_000, 10);
      g.shut();
      // A change under /storms invalidates the cache (and requests a round): the next reads meet the gate.
      await store.session().create(ZkPaths.childOf(ZkPaths.storms, 'junk'), Buffer.from('{}'));
      await waitFor('reads held at the gate', () => g.held.reads > 0, 10_000, 10);
      const held = nimbus.readModel.nimbusHealth();
      await waitFor('ticks skipped while the round waits', () => nimbus.readModel.nimbusHealth().monitor.skippedTicks >= held.monitor.skippedTicks + 20, 30_000, 10);
      await waitFor('sampler ticks skipped too', () => nimbus.readModel.nimbusHealth().sampler.skippedTicks >= held.sampler.skippedTicks + 20, 30_000, 10);
      const before = nimbus.readModel.nimbusHealth().monitor.count;
      g.reopen();
      await nimbus.reconcileNow();
      const ranFirst = nimbus.readModel.nimbusHealth().monitor.count - before;
      // At most the round that was running and the one tick that was waiting for the lock: nothing queued behind them.
      assert.ok(ranFirst <= 2, `${ranFirst} monitor rounds ran before the verb`);
    } finally {
      g.reopen();
      await nimbus.stop();
    }
  });
});
