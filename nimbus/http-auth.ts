/**
 * The lock on nimbus's HTTP API (`nimbus.auth.secret`): a request must carry
 * `Authorization: Bearer <secret>` when it
 *
 *  - changes anything (every method but GET/HEAD/OPTIONS: submit, kill,
 *    activate, deactivate, rebalance, Storm UI's actions),
 *  - downloads code or keys (`/topologies/:id/bundle`, `/topologies/:id/curve-keys`),
 *  - or reads anything else under /api/ or /metrics while `nimbus.auth.reads` is on.
 *
 * The web page's own files stay public (they hold no data; the page asks for
 * the secret when the API answers 401). A refusal is 401 with
 * HSTORM_ERR_NIMBUS_UNAUTHENTICATED, answered before the body is parsed.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import { UnauthenticatedError } from '../common/errors.js';
import { bearerMatches } from '../common/security/bearer-token.js';

export interface HttpAuth {
  secret: string;
  /** GET routes need the secret too. */
  reads: boolean;
}

const ALWAYS_LOCKED = new Set(['/api/v1/topologies/:id/bundle', '/api/v1/topologies/:id/curve-keys']);
const READ_ROUTES = /^\/(api|metrics)(\/|$)/;

/**
 * Whether a request for `route` needs the secret. `route` is the pattern the
 * router matched (`/api/v1/topologies/:id/bundle`), never the raw URL: the
 * router decodes percent-escapes, so `/api/v1/topologies/x/%62undle` reaches
 * the bundle route while its URL matches no pattern written against URLs.
 * Unmatched requests (404) pass their raw path.
 */
export function needsSecret(method: string, route: string, reads: boolean): boolean {
  if (!['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase())) return true;
  if (ALWAYS_LOCKED.has(route)) return true;
  return reads && READ_ROUTES.test(route);
}

export function registerHttpAuth(app: FastifyInstance, auth: HttpAuth, log: Logger): void {
  const refusals = new RateLimitedLog(log);
  app.addHook('onRequest', async (req, reply) => {
    if (!needsSecret(req.method, req.routeOptions.url ?? req.url.split('?')[0]!, auth.reads)) return;
    if (bearerMatches(req.headers.authorization, auth.secret)) return;
    const err = new UnauthenticatedError(
      req.headers.authorization === undefined
        ? `${req.method} ${req.url.split('?')[0]} needs nimbus's shared secret: send "Authorization: Bearer <secret>" (the CLI does when nimbus.auth.secret or nimbus.auth.secret.file is set)`
        : `${req.method} ${req.url.split('?')[0]}: the Authorization header does not carry nimbus's shared secret (check nimbus.auth.secret / nimbus.auth.secret.file)`,
    );
    refusals.warn({ method: req.method, url: req.url, remote: req.ip, code: err.code }, 'unauthenticated request refused');
    return reply
      .status(401)
      .header('www-authenticate', 'Bearer realm="hstorm"')
      .send({ error: { code: err.code, message: err.message } });
  });
}
