/**
 * A topology whose workers die at start (its module throws while loading):
 * the supervisor restarts them with backoff, reports the deaths with the last
 * error from the worker's log, and nimbus shows the topology and the worker
 * as crash-looping in describe, list and the Storm UI API's records.
 * LocalCluster: in-memory store, real nimbus and supervisor code, real worker processes.
 */
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalCluster } from '../../cli/local-cluster.js';
import { silentLogger } from '../../common/logger.js';
import type { TopologyDef } from '../../common/topology-def.js';
import { formatDetail } from '../../cli/describe-format.js';
import { topologySummary as stormUiTopologySummary } from '../../ui/storm-ui/cluster-views.js';
import { waitFor } from '../helpers/wait-for.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

const DEF: TopologyDef = {
  components: [{ id: 'spout', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['x'], direct: false }], inputs: [], gpu: null, config: {} }],
  config: {},
};

describe('crash-looping workers', function () {
  this.timeout(90_000);
  let cluster: LocalCluster | null = null;
  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
  });

  it('are shown as crash-looping with the last error from their log in describe, list and the Storm UI API', async () => {
    const c = (cluster = await LocalCluster.start({
      log: silentLogger(),
      portsNeeded: 1,
      clusterConfig: { 'nimbus.scheduler': 'even', 'supervisor.gpu.discovery': 'none' },
    }));
    await c.submit('doomed', join(FIXTURES, 'throwing-topology.js'), DEF, { 'topology.workers': 1 });
    const detail = await waitFor(
      'nimbus reports the worker crash-looping',
      async () => {
        const d = await c.topologyDetail('doomed');
        return d.crashLooping && d.workers[0]?.exits?.lastError ? d : null;
      },
      60_000,
    );
    const exits = detail.workers[0]!.exits!;
    assert.ok(exits.fastDeaths >= 3, `fastDeaths ${exits.fastDeaths}`);
    assert.equal(exits.lastExit.code, 1);
    assert.match(exits.lastError!, /throws at load on purpose/);
    assert.match(formatDetail(detail), /status active \(crash-looping\)/);
    assert.match(formatDetail(detail), /CRASH-LOOPING .*\n {4}last error: .*throws at load on purpose/);
    const [row] = await c.nimbus.readModel.topologies();
    assert.equal(row!.crashLoopingWorkers, 1);
    const ui = stormUiTopologySummary(await c.nimbus.readModel.clusterSnapshot());
    assert.equal(ui.topologies[0]!.hstorm.crashLooping, true);
  });
});
