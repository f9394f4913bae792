/**
 * Storm UI's rebalance route does what `hstorm rebalance` does, `-e` included (issue 31): `rebalanceOptions.executors`
 * reaches nimbus's rebalance as it reaches it from the CLI, and a bad value is a 400 naming it.
 */
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import type { StormBase } from '../../../common/storm-base.js';
import type { RebalanceOptions } from '../../../nimbus/topology-admin.js';
import type { ClusterReadModel, TopologyControl } from '../../../nimbus/read-model.js';
import { httpError } from '../../../nimbus/http-errors.js';
import { registerStormUiRoutes } from '../../../ui/storm-ui/routes.js';
import { StatsHistory } from '../../../ui/stats/topology-stats.js';

describe('ui/storm-ui rebalance route', () => {
  it('passes numWorkers and executors to the rebalance, and refuses a parallelism that is not an integer ≥ 1', async () => {
    const calls: { id: string; opts: RebalanceOptions | undefined }[] = [];
    const base = { id: 'hm-1-1', status: 'rebalancing' } as StormBase;
    const control: TopologyControl = {
      kill: () => Promise.resolve(base),
      activate: () => Promise.resolve(base),
      deactivate: () => Promise.resolve(base),
      rebalance: (id, opts) => {
        calls.push({ id, opts });
        return Promise.resolve(base);
      },
    };
    const app = Fastify();
    app.setErrorHandler((err, _req, reply) => {
      const { status, body } = httpError(err);
      void reply.status(status).send(body);
    });
    registerStormUiRoutes(app, { readModel: {} as ClusterReadModel, control, stats: new StatsHistory({ startedAt: 0 }) });
    const post = (body: unknown) => app.inject({ method: 'POST', url: '/api/v1/topology/hm/rebalance/0', payload: body as object });

    const ok = await post({ rebalanceOptions: { numWorkers: 4, executors: { 'gpu-dealer': 2 } } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(calls, [{ id: 'hm', opts: { waitSecs: 0, workers: 4, executors: { 'gpu-dealer': 2 } } }]);
    assert.equal((ok.json() as { topologyOperation: string }).topologyOperation, 'rebalance');

    const bad = await post({ rebalanceOptions: { executors: { 'gpu-dealer': 0 } } });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /executors/);
    assert.equal(calls.length, 1, 'nothing rebalanced');
    await app.close();
  });
});
