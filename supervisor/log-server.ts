/**
 * The supervisor's log server (Storm's logviewer, without the web page): what
 * `hstorm logs` reads its workers' log files from,
 *
 *   GET /api/v1/logs/:topologyId/:port?lines=N        the last N lines
 *   GET /api/v1/logs/:topologyId/:port?offset=B       the bytes from B on (at most 1 MiB; page on with offset=end)
 *
 * answering `{ topologyId, port, size, start, end, text }`. Only files under
 * the worker log directory are served (worker-log-files.ts). Logs can hold
 * tuple values, so with `nimbus.auth.secret` set every request needs
 * `Authorization: Bearer <secret>`, as nimbus's API does; it listens on the
 * slots' bind address (`supervisor.slots.bind.host`), port
 * `supervisor.logviewer.port` (0: any free port), and the supervisor
 * advertises where in its ZooKeeper record. Errors are `{ error: { code, message } }`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { HstormError } from '../common/errors.js';
import { RateLimitedLog, type Logger } from '../common/logger.js';
import { bearerMatches } from '../common/security/bearer-token.js';
import { LogNotFoundError, LogPathError } from './errors.js';
import { WorkerLogFiles } from './worker-log-files.js';

export interface LogServerOptions {
  logDir: string;
  /** nimbus.auth.secret: every request needs it when set. */
  secret: string | null;
  log: Logger;
}

/** Longest tail one request may ask for. */
export const MAX_TAIL_LINES = 100_000;

export function buildLogServer(opts: LogServerOptions): FastifyInstance {
  const files = new WorkerLogFiles(opts.logDir);
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const refusals = new RateLimitedLog(opts.log);

  app.setErrorHandler((err, req, reply) => {
    const status = err instanceof LogNotFoundError ? 404 : err instanceof HstormError ? 400 : 500;
    const code = err instanceof HstormError ? err.code : 'HSTORM_ERR_INTERNAL';
    if (status >= 500) opts.log.error({ err, url: req.url }, 'log request failed');
    void reply.status(status).send({ error: { code, message: err instanceof Error ? err.message : String(err) } });
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ error: { code: 'HSTORM_ERR_SUPERVISOR_LOG_NOT_FOUND', message: `no such endpoint: ${req.method} ${req.url.split('?')[0]}` } });
  });

  const secret = opts.secret;
  if (secret !== null) {
    app.addHook('onRequest', async (req, reply) => {
      if (bearerMatches(req.headers.authorization, secret)) return;
      refusals.warn({ url: req.url, remote: req.ip }, 'unauthenticated log request refused');
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer realm="hstorm"')
        .send({
          error: {
            code: 'HSTORM_ERR_SUPERVISOR_LOG_UNAUTHENTICATED',
            message: `${req.method} ${req.url.split('?')[0]}: worker logs need nimbus's shared secret: send "Authorization: Bearer <secret>" (hstorm logs does when nimbus.auth.secret or nimbus.auth.secret.file is set)`,
          },
        });
    });
  }

  app.get<{ Params: { topologyId: string; port: string }; Querystring: { lines?: string; offset?: string } }>('/api/v1/logs/:topologyId/:port', async (req) => {
    const { topologyId, port } = req.params;
    const { lines, offset } = req.query;
    if (lines !== undefined && offset !== undefined) throw new LogPathError('give either lines or offset, not both');
    if (lines !== undefined) {
      const n = wholeNumber('lines', lines, 1, MAX_TAIL_LINES);
      return files.tail(topologyId, Number(port), n);
    }
    return files.fromOffset(topologyId, Number(port), offset === undefined ? 0 : wholeNumber('offset', offset, 0, Number.MAX_SAFE_INTEGER));
  });
  return app;
}

function wholeNumber(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new LogPathError(`invalid ${name} "${raw.slice(0, 20)}"; allowed: a whole number from ${min} to ${max}`);
  return n;
}

/** Listens on host:port (port 0: any free one); resolves with the server and the port bound. */
export async function startLogServer(opts: LogServerOptions & { host: string; port: number }): Promise<{ app: FastifyInstance; port: number }> {
  const app = buildLogServer(opts);
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    throw new HstormError(
      'HSTORM_ERR_SUPERVISOR_LOG_SERVER',
      `the worker log server cannot listen on ${opts.host}:${opts.port} (supervisor.slots.bind.host, supervisor.logviewer.port): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  opts.log.info({ host: opts.host, port, auth: opts.secret !== null }, 'worker log server listening');
  return { app, port };
}
