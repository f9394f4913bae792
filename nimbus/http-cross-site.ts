/**
 * Cross-site requests refused, with or without nimbus.auth.secret: any web page
 * an operator opens can make the browser send requests to nimbus — a form
 * post, a no-cors `fetch`, or, after rebinding its own DNS name to nimbus's
 * address, same-origin requests under that foreign name. A request that
 * changes anything (every method but GET/HEAD/OPTIONS) must therefore
 *
 *  - carry `Content-Type: application/json`: no form and no no-cors fetch can
 *    send it, and a cross-origin fetch that sets it must first ask (a CORS
 *    preflight), which nimbus never grants;
 *  - be addressed to this nimbus: its `Host` is one of http-hosts.ts's names
 *    (a rebinding page's requests carry the page's own name);
 *  - when it carries `Origin` (browsers send it with every POST), come from
 *    the origin it is addressed to, or from a name nimbus.http.allowed.hosts
 *    lists (a TLS proxy in front of nimbus).
 *
 * This is the job Storm UI's anti-forgery token did. The CLI, supervisors
 * and the web UI pass all three. A refusal is 415
 * HSTORM_ERR_NIMBUS_UNSUPPORTED_MEDIA or 403 HSTORM_ERR_NIMBUS_CROSS_SITE,
 * answered before the body is read, and logged (rate-limited).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import type { HostAllowList } from './http-hosts.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Why `req` is refused, with its status and code; null when it may go on. */
export function crossSiteRefusal(req: Pick<FastifyRequest, 'method' | 'headers'>, hosts: HostAllowList): { status: number; code: string; message: string } | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const what = `${req.method.toUpperCase()} changes state`;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    return {
      status: 415,
      code: 'HSTORM_ERR_NIMBUS_UNSUPPORTED_MEDIA',
      message: `${what}: send it with "Content-Type: application/json" (a body of {} will do; got ${type ? `"${type}"` : 'none'}) — browsers cannot send that across sites without asking first, which nimbus never grants`,
    };
  }
  const host = req.headers.host ?? '';
  if (!hosts.allows(host)) {
    return {
      status: 403,
      code: 'HSTORM_ERR_NIMBUS_CROSS_SITE',
      message: `${what}: it was addressed to "${host}", which is not a name of this nimbus (loopback, this machine's names and addresses, nimbus.host, its bind address); add the name to nimbus.http.allowed.hosts if clients reach nimbus under it`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host) && !hosts.isGiven(originHost(origin) ?? '')) {
    return {
      status: 403,
      code: 'HSTORM_ERR_NIMBUS_CROSS_SITE',
      message: `${what}: it came from a page of another origin (${JSON.stringify(origin)}), not from nimbus's own (${host}); add that origin's host to nimbus.http.allowed.hosts if it is yours`,
    };
  }
  return null;
}

/** `host[:port]` of an Origin header (default ports dropped), or null for `null` and anything unparsable. */
function originHost(origin: string): string | null {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}

function sameOrigin(origin: string, host: string): boolean {
  const from = originHost(origin);
  if (from === null) return false;
  try {
    return new URL(`http://${host}`).host === from;
  } catch {
    return false;
  }
}

export function registerCrossSiteGuard(app: FastifyInstance, hosts: HostAllowList, log: Logger): void {
  const refusals = new RateLimitedLog(log);
  app.addHook('onRequest', async (req, reply) => {
    const r = crossSiteRefusal(req, hosts);
    if (!r) return;
    refusals.warn({ method: req.method, url: req.url, host: req.headers.host, origin: req.headers.origin, remote: req.ip, code: r.code }, 'cross-site request refused');
    return reply.status(r.status).send({ error: { code: r.code, message: r.message } });
  });
}
