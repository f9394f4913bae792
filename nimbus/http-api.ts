/**
 * Nimbus's HTTP server (fastify): hstorm's own JSON API, what `hstorm` client
 * commands and supervisors talk to,
 *
 *   GET  /api/v1/supervisors
 *   GET  /api/v1/topologies
 *   GET  /api/v1/topologies/:name                 (name or id)
 *   GET  /api/v1/topologies/:name/timeseries      split γ, δ, latencies over time [?since=<epoch ms>]
 *   GET  /api/v1/scheduler/queue                  topologies waiting in the HDRF queue, in HDRF order
 *   POST /api/v1/topologies                       { name, def, config, bundle (base64 gzip), sha256 }
 *   GET  /api/v1/topologies/:id/bundle            the gzip bundle (supervisors)
 *   GET  /api/v1/topologies/:id/curve-keys        the CURVE key pair of its workers (supervisors; hstorm.messaging.curve)
 *   POST /api/v1/topologies/:name/kill            { waitSecs? }
 *   POST /api/v1/topologies/:name/activate
 *   POST /api/v1/topologies/:name/deactivate
 *   POST /api/v1/topologies/:name/log-level       { level, timeoutSecs? }   (level "reset" undoes it)
 *   POST /api/v1/topologies/:name/rebalance       { workers?, waitSecs?, executors?: { component: n } }
 *   POST /api/v1/supervisors/:id/worker-beats      a supervisor's workers' liveness (worker-beats-route.ts)
 *   GET  /api/v1/nimbus/health                     how nimbus keeps up: rounds, samples, reports, memory
 *
 * and beside it whatever `plugins` the caller adds: `hstorm nimbus` adds the UI
 * room's (ui/: Storm's UI REST API, the web UI at `/`, Prometheus `/metrics`),
 * so nimbus imports nothing of the UI. The reads answer from the read model
 * (read-model.ts), the writes go to the Nimbus.
 *
 * With `nimbus.auth.secret` set, mutating routes, the bundle and the keys need
 * `Authorization: Bearer <secret>` (http-auth.ts). Whatever the secret,
 * mutating routes take only JSON requests addressed to this nimbus from its
 * own origin (http-cross-site.ts): no web page can act through a browser.
 *
 * Every error is `{ error: { code, message } }` with a 4xx/5xx status; no
 * request can make nimbus exit.
 */
import { createReadStream } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { withDefaults } from '../common/config/index.js';
import type { Logger } from '../common/logger.js';
import type { StormBase } from '../common/storm-base.js';
import { registerHttpAuth, type HttpAuth } from './http-auth.js';
import { registerCrossSiteGuard } from './http-cross-site.js';
import { HostAllowList } from './http-hosts.js';
import { BadRequestError } from './errors.js';
import { httpError } from './http-errors.js';
import {
  decodeBase64,
  killRequestSchema,
  parseBody,
  rebalanceRequestSchema,
  logLevelRequestSchema,
  submitRequestSchema,
} from './http-requests.js';
import type { Nimbus } from './nimbus.js';
import { registerWorkerBeatsRoute } from './worker-beats-route.js';

/** Routes another room adds to this server; they run behind its auth hook and error handler. */
export type HttpApiPlugin = (app: FastifyInstance) => void;

export interface HttpApiOptions {
  nimbus: Nimbus;
  /** Added after the API's own routes, in order (the UI room's `operatorUi`). */
  plugins?: readonly HttpApiPlugin[];
  log: Logger;
  /** Largest request body accepted (bundles are sent inline). Default 128 MiB. */
  bodyLimit?: number;
  /** The shared secret mutating routes (and, optionally, reads) need (http-auth.ts); absent: open. */
  auth?: HttpAuth | null;
  /**
   * Names besides loopback and this machine's own under which clients may change anything (nimbus.host,
   * nimbus.http.allowed.hosts; startHttpApi adds the bound address): a request addressed to another is refused (http-cross-site.ts).
   */
  allowedHosts?: readonly string[];
}

export const API_PREFIX = '/api/v1';

export function buildHttpApi(opts: HttpApiOptions): FastifyInstance {
  const { nimbus, log } = opts;
  const views = nimbus.readModel;
  // forceCloseConnections: on shutdown, a client still reading a bundle must not keep nimbus alive.
  const app = Fastify({ logger: false, bodyLimit: opts.bodyLimit ?? 128 * 1024 * 1024, forceCloseConnections: true });

  app.setErrorHandler((err, req, reply) => {
    const { status, body } = httpError(err);
    if (status >= 500) log.error({ err, url: req.url, method: req.method }, 'request failed');
    else log.info({ url: req.url, method: req.method, code: body.error.code, status }, 'request refused');
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ error: { code: 'HSTORM_ERR_NIMBUS_NO_ROUTE', message: `no such endpoint: ${req.method} ${req.url}` } });
  });

  if (opts.auth) registerHttpAuth(app, opts.auth, log);
  registerCrossSiteGuard(app, new HostAllowList(opts.allowedHosts ?? []), log);
  // JSON is what every mutating route needs (http-cross-site.ts), so an empty JSON body must parse (as no body):
  // Storm's body-less POSTs (`curl -X POST -H 'Content-Type: application/json' …/kill/0`) carry none.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => (body === '' ? done(null, undefined) : json(req, body as string, done)));

  app.get(`${API_PREFIX}/supervisors`, async () => ({ supervisors: await views.supervisors() }));
  app.get(`${API_PREFIX}/topologies`, async () => ({ topologies: await views.topologies() }));
  app.get(`${API_PREFIX}/scheduler/queue`, () => views.queue());
  app.get(`${API_PREFIX}/nimbus/health`, () => views.nimbusHealth());
  app.get<{ Params: { name: string } }>(`${API_PREFIX}/topologies/:name`, (req) => views.topologyDetail(req.params.name));
  app.get<{ Params: { name: string }; Querystring: { since?: string } }>(`${API_PREFIX}/topologies/:name/timeseries`, (req) => {
    const raw = req.query.since;
    const since = raw === undefined || raw === '' ? undefined : Number(raw);
    if (since !== undefined && !Number.isFinite(since)) throw new BadRequestError(`since must be epoch milliseconds, got "${raw}"`, 'since');
    return views.timeseries(req.params.name, since);
  });

  app.post(`${API_PREFIX}/topologies`, async (req, reply) => {
    const body = parseBody(submitRequestSchema, req.body);
    const gz = decodeBase64(body.bundle, 'bundle');
    const result = await nimbus.submitBundle(body.name, body.def, body.config, gz, body.sha256, { inactive: body.inactive });
    return reply.status(201).send(result);
  });

  app.get<{ Params: { id: string } }>(`${API_PREFIX}/topologies/:id/bundle`, async (req, reply) => {
    const { path, sha256 } = await nimbus.bundlePath(req.params.id);
    return reply.header('content-type', 'application/gzip').header('x-hstorm-sha256', sha256).send(createReadStream(path));
  });

  // CURVE key pair of a topology's workers (supervisors fetch it; always behind the secret, see http-auth.ts).
  app.get<{ Params: { id: string } }>(`${API_PREFIX}/topologies/:id/curve-keys`, (req) => nimbus.curveKeys(req.params.id));

  app.post<{ Params: { name: string } }>(`${API_PREFIX}/topologies/:name/kill`, async (req) => {
    const body = parseBody(killRequestSchema, req.body);
    return nimbus.kill(req.params.name, body.waitSecs).then(statusView);
  });
  app.post<{ Params: { name: string } }>(`${API_PREFIX}/topologies/:name/activate`, (req) => nimbus.activate(req.params.name).then(statusView));
  app.post<{ Params: { name: string } }>(`${API_PREFIX}/topologies/:name/deactivate`, (req) =>
    nimbus.deactivate(req.params.name).then(statusView),
  );
  app.post<{ Params: { name: string } }>(`${API_PREFIX}/topologies/:name/log-level`, async (req) => {
    const body = parseBody(logLevelRequestSchema, req.body);
    const s = await nimbus.setLogLevel(req.params.name, body.level, body.timeoutSecs);
    return { ...statusView(s), logLevel: s.logLevel ?? null };
  });
  app.post<{ Params: { name: string } }>(`${API_PREFIX}/topologies/:name/rebalance`, async (req) => {
    const body = parseBody(rebalanceRequestSchema, req.body);
    return nimbus
      .rebalance(req.params.name, {
        ...(body.workers !== undefined && { workers: body.workers }),
        ...(body.waitSecs !== undefined && { waitSecs: body.waitSecs }),
        ...(body.executors !== undefined && { executors: body.executors }),
      })
      .then(statusView);
  });
  registerWorkerBeatsRoute(app, API_PREFIX, { receive: (r) => nimbus.receiveWorkerBeats(r), refused: () => nimbus.refusedWorkerBeats(), log });
  for (const plugin of opts.plugins ?? []) plugin(app);
  return app;
}

/** What a lifecycle call answers: enough for the CLI to print and to poll on. */
export interface TopologyStatusView {
  id: string;
  name: string;
  status: string;
  killWaitSecs: number | null;
  workers: number;
}

function statusView(s: StormBase): TopologyStatusView {
  return { id: s.id, name: s.name, status: s.status, killWaitSecs: s.killWaitSecs ?? null, workers: withDefaults(s.config)['topology.workers'] };
}

/** Builds the API and listens; resolves with the server and the port actually bound (useful with port 0). */
export async function startHttpApi(opts: HttpApiOptions & { host: string; port: number }): Promise<{ app: FastifyInstance; port: number }> {
  const app = buildHttpApi({ ...opts, allowedHosts: [opts.host, ...(opts.allowedHosts ?? [])] });
  await app.listen({ host: opts.host, port: opts.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  opts.log.info({ host: opts.host, port, auth: opts.auth ? (opts.auth.reads ? 'all' : 'writes') : 'off' }, 'nimbus HTTP API listening');
  return { app, port };
}
