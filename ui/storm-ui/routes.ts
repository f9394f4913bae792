/**
 * Storm's UI REST API on nimbus's HTTP server, with Storm's paths, so that
 * scripts written against `storm ui` work against hstorm:
 *
 *   GET  /api/v1/cluster/configuration
 *   GET  /api/v1/cluster/summary
 *   GET  /api/v1/nimbus/summary
 *   GET  /api/v1/supervisor/summary
 *   GET  /api/v1/topology/summary
 *   GET  /api/v1/topology/:id                       ?window=600|10800|86400|:all-time &sys=1
 *   GET  /api/v1/topology/:id/component/:component  ?window &sys
 *   GET  /api/v1/topology/:id/metrics               ?window &sys
 *   POST /api/v1/topology/:id/activate
 *   POST /api/v1/topology/:id/deactivate
 *   POST /api/v1/topology/:id/rebalance/:waitTime   { rebalanceOptions: { numWorkers, executors: { component: n } } }
 *   POST /api/v1/topology/:id/kill/:waitTime
 *
 * `:id` is a topology id or name. Errors are hstorm's `{ error: { code, message } }`
 * with a 4xx/5xx status (Storm answers 500 for all of them).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ACKER_COMPONENT } from '../../common/topology-def.js';
import { BadRequestError, ComponentNotFoundError } from '../../nimbus/errors.js';
import { parseBody } from '../../nimbus/http-requests.js';
import type { ClusterReadModel, TopologyControl } from '../../nimbus/read-model.js';
import type { StatsHistory } from '../stats/topology-stats.js';
import { clusterSummary, nimbusSummary, supervisorSummary, topologySummary } from './cluster-views.js';
import { parseSys, parseWindow } from './format.js';
import { componentPage, topologyMetrics, topologyPage, type TopologyInput } from './topology-views.js';

/** What the routes read and act on. */
export interface StormUiSources {
  readModel: ClusterReadModel;
  control: TopologyControl;
  /** Storm's windows over the heartbeats (fed by the read model). */
  stats: StatsHistory;
}

const P = '/api/v1';

type Query = { window?: string; sys?: string };

const rebalanceBody = z
  .object({
    rebalanceOptions: z
      .object({
        numWorkers: z.coerce.number().int().min(1).optional(),
        // Storm's `rebalance -e`: each named component's new parallelism (nimbus checks the names).
        executors: z.record(z.string(), z.coerce.number().int().min(1)).optional(),
      })
      .optional(),
    callback: z.string().optional(),
  })
  .default({});

function waitSecs(raw: string): number {
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(n)) throw new BadRequestError(`wait-time must be seconds (a number ≥ 0), got "${raw}"`, 'wait-time');
  return n;
}

function operation(topologyOperation: string, s: { id: string; status: string }) {
  return { topologyOperation, topologyId: s.id, status: 'success', hstorm: { topologyStatus: s.status.toUpperCase() } };
}

export function registerStormUiRoutes(app: FastifyInstance, { readModel, control, stats }: StormUiSources): void {
  /** The window and sys flag are checked before the topology is looked up (a bad window is a 400 whatever the id). */
  const topologyInput = async (id: string, query: Query): Promise<TopologyInput> => {
    const window = parseWindow(query.window);
    const sys = parseSys(query.sys);
    return { ...(await readModel.topologySnapshot(id)), stats, window, sys };
  };
  app.get(`${P}/cluster/configuration`, () => ({ ...readModel.clusterConfig() }));
  app.get(`${P}/cluster/summary`, async () => clusterSummary(await readModel.clusterSnapshot()));
  app.get(`${P}/nimbus/summary`, async () => nimbusSummary(await readModel.clusterSnapshot()));
  app.get(`${P}/supervisor/summary`, async () => supervisorSummary(await readModel.clusterSnapshot()));
  app.get(`${P}/topology/summary`, async () => topologySummary(await readModel.clusterSnapshot()));

  app.get<{ Params: { id: string }; Querystring: Query }>(`${P}/topology/:id`, async (req) => topologyPage(await topologyInput(req.params.id, req.query)));
  app.get<{ Params: { id: string }; Querystring: Query }>(`${P}/topology/:id/metrics`, async (req) => topologyMetrics(await topologyInput(req.params.id, req.query)));
  app.get<{ Params: { id: string; component: string }; Querystring: Query }>(`${P}/topology/:id/component/:component`, async (req) => {
    const input = await topologyInput(req.params.id, req.query);
    const c = req.params.component;
    if (c !== ACKER_COMPONENT && !input.storm.def.components.some((x) => x.id === c)) throw new ComponentNotFoundError(input.storm.name, c);
    return componentPage(input, c);
  });

  app.post<{ Params: { id: string } }>(`${P}/topology/:id/activate`, async (req) => operation('activate', await control.activate(req.params.id)));
  app.post<{ Params: { id: string } }>(`${P}/topology/:id/deactivate`, async (req) => operation('deactivate', await control.deactivate(req.params.id)));
  app.post<{ Params: { id: string; waitTime: string } }>(`${P}/topology/:id/rebalance/:waitTime`, async (req) => {
    const wait = waitSecs(req.params.waitTime);
    const body = parseBody(rebalanceBody, req.body);
    const opts = body.rebalanceOptions;
    const s = await control.rebalance(req.params.id, {
      waitSecs: wait,
      ...(opts?.numWorkers !== undefined && { workers: opts.numWorkers }),
      ...(opts?.executors !== undefined && Object.keys(opts.executors).length > 0 && { executors: opts.executors }),
    });
    return operation('rebalance', s);
  });
  app.post<{ Params: { id: string; waitTime: string } }>(`${P}/topology/:id/kill/:waitTime`, async (req) =>
    operation('kill', await control.kill(req.params.id, waitSecs(req.params.waitTime))),
  );
}
