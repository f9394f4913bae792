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
 *   POST /api/v1/topology/:id/rebalance/:waitTime   { rebalanceOptions: { numWorkers } }
 *   POST /api/v1/topology/:id/kill/:waitTime
 *
 * `:id` is a topology id or name. Errors are hstorm's `{ error: { code, message } }`
 * with a 4xx/5xx status (Storm answers 500 for all of them).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ACKER_COMPONENT } from '../../common/topology-def.js';
import { BadRequestError, ComponentNotFoundError } from '../errors.js';
import { parseBody } from '../http-requests.js';
import type { Nimbus } from '../nimbus.js';
import { clusterSummary, nimbusSummary, supervisorSummary, topologySummary } from './cluster-views.js';
import { parseSys, parseWindow } from './format.js';
import { componentPage, topologyMetrics, topologyPage } from './topology-views.js';

const P = '/api/v1';

type Query = { window?: string; sys?: string };

const rebalanceBody = z
  .object({
    rebalanceOptions: z
      .object({
        numWorkers: z.coerce.number().int().min(1).optional(),
        executors: z.record(z.string(), z.unknown()).optional(),
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

export function registerStormUiRoutes(app: FastifyInstance, nimbus: Nimbus): void {
  app.get(`${P}/cluster/configuration`, () => ({ ...nimbus.config }));
  app.get(`${P}/cluster/summary`, async () => clusterSummary(await nimbus.clusterInput()));
  app.get(`${P}/nimbus/summary`, async () => nimbusSummary(await nimbus.clusterInput()));
  app.get(`${P}/supervisor/summary`, async () => supervisorSummary(await nimbus.clusterInput()));
  app.get(`${P}/topology/summary`, async () => topologySummary(await nimbus.clusterInput()));

  app.get<{ Params: { id: string }; Querystring: Query }>(`${P}/topology/:id`, async (req) =>
    topologyPage(await nimbus.topologyInput(req.params.id, parseWindow(req.query.window), parseSys(req.query.sys))),
  );
  app.get<{ Params: { id: string }; Querystring: Query }>(`${P}/topology/:id/metrics`, async (req) =>
    topologyMetrics(await nimbus.topologyInput(req.params.id, parseWindow(req.query.window), parseSys(req.query.sys))),
  );
  app.get<{ Params: { id: string; component: string }; Querystring: Query }>(`${P}/topology/:id/component/:component`, async (req) => {
    const input = await nimbus.topologyInput(req.params.id, parseWindow(req.query.window), parseSys(req.query.sys));
    const c = req.params.component;
    if (c !== ACKER_COMPONENT && !input.storm.def.components.some((x) => x.id === c)) throw new ComponentNotFoundError(input.storm.name, c);
    return componentPage(input, c);
  });

  app.post<{ Params: { id: string } }>(`${P}/topology/:id/activate`, async (req) => operation('activate', await nimbus.activate(req.params.id)));
  app.post<{ Params: { id: string } }>(`${P}/topology/:id/deactivate`, async (req) => operation('deactivate', await nimbus.deactivate(req.params.id)));
  app.post<{ Params: { id: string; waitTime: string } }>(`${P}/topology/:id/rebalance/:waitTime`, async (req) => {
    const wait = waitSecs(req.params.waitTime);
    const body = parseBody(rebalanceBody, req.body);
    const opts = body.rebalanceOptions;
    if (opts?.executors && Object.keys(opts.executors).length > 0) {
      throw new BadRequestError('hstorm rebalance cannot change the parallelism of components (rebalanceOptions.executors); pass only numWorkers', 'rebalanceOptions.executors');
    }
    const s = await nimbus.rebalance(req.params.id, { waitSecs: wait, ...(opts?.numWorkers !== undefined && { workers: opts.numWorkers }) });
    return operation('rebalance', s);
  });
  app.post<{ Params: { id: string; waitTime: string } }>(`${P}/topology/:id/kill/:waitTime`, async (req) =>
    operation('kill', await nimbus.kill(req.params.id, waitSecs(req.params.waitTime))),
  );
}
