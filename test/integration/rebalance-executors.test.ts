/**
 * `rebalance -e component=N` (Storm's executors rebalance): nimbus changes the
 * component's parallelism, the workers restart with the new tasks (they
 * accept a module that builds the old parallelism, since the rebalance says
 * so), and tuples keep flowing through the new executors. LocalCluster with
 * real worker processes running the word-count example.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { silentLogger } from '../../common/logger.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';
import { waitFor } from '../helpers/wait-for.js';

describe('rebalance -e component=N', function () {
  this.timeout(120_000);
  let cluster: LocalCluster | null = null;
  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
  });

  it('runs the component with the new number of executors, and refuses an unknown component', async () => {
    const c = (cluster = await LocalCluster.start({ log: silentLogger(), portsNeeded: 1, clusterConfig: { 'supervisor.gpu.discovery': 'none' } }));
    const modulePath = resolveModulePath(join(PACKAGE_ROOT, 'examples/word-count'), PACKAGE_ROOT);
    const { def, topologyConfig } = await loadConfiguredTopology(modulePath, { 'topology.workers': 1, 'wordcount.parallelism.split': 1 });
    const { topologyId } = await c.submit('wc', modulePath, def, topologyConfig);
    await waitFor('split running on 1 executor', async () => (await c.heartbeats(topologyId)).some((b) => b.executors.some((e) => e.component === 'split' && e.executed > 0)), 60_000);

    await assert.rejects(c.rebalance('wc', { executors: { nope: 2 } }), /no such component; allowed: sentences, split, count/);
    await c.rebalance('wc', { executors: { split: 3 } });

    const detail = await c.topologyDetail('wc');
    assert.equal(detail.components.split!.executors, 3);
    const splitTasks = await waitFor(
      'three split executors, all executing',
      async () => {
        const ex = (await c.heartbeats(topologyId)).flatMap((b) => b.executors.filter((e) => e.component === 'split'));
        return ex.length === 3 && ex.every((e) => e.executed > 0) ? ex : null;
      },
      60_000,
    );
    assert.equal(new Set(splitTasks.map((e) => e.task)).size, 3);
  });
});
