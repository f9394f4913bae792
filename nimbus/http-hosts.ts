/**
 * The names nimbus's HTTP server answers state-changing requests under (the
 * `Host` header; http-cross-site.ts): loopback, this machine's host name and
 * every address of its interfaces, and the names given — nimbus.host, the
 * address it is bound to, nimbus.http.allowed.hosts. A page that rebinds its
 * own DNS name to nimbus's address reaches it under that foreign name, which
 * none of these is.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isLoopback } from '../common/security/exposure.js';

/** `host[:port]` of a Host header or an allow-list entry, the name lowercased, IPv6 brackets and a trailing dot gone. */
export function splitHost(text: string): { name: string; port: string | null } {
  const t = text.trim().toLowerCase();
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  const [name, port] = v6 ? [v6[1]!, v6[2] ?? null] : /^[^:]*:\d+$/.test(t) ? [t.slice(0, t.lastIndexOf(':')), t.slice(t.lastIndexOf(':') + 1)] : [t, null];
  return { name: name.replace(/\.$/, ''), port };
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

export class HostAllowList {
  /** Entries given (`name` for any port, `name:port` for that port only). */
  private readonly given: { name: string; port: string | null }[];
  private local = localNames();

  constructor(names: readonly string[]) {
    this.given = names.map(splitHost).filter((h) => !WILDCARDS.has(h.name));
  }

  /** Whether a request whose Host header is `host` is addressed to this nimbus. */
  allows(host: string): boolean {
    const h = splitHost(host);
    if (h.name === '') return false;
    if (isLoopback(h.name) || this.isGiven(host) || this.local.has(h.name)) return true;
    // An address the machine gained since the last look (DHCP, a new interface): look once more before refusing.
    this.local = localNames();
    return this.local.has(h.name);
  }

  /** Whether `host` is one of the names given (an Origin behind a proxy is accepted only if it was named). */
  isGiven(host: string): boolean {
    const h = splitHost(host);
    return this.given.some((g) => g.name === h.name && (g.port === null || g.port === h.port));
  }
}

function localNames(): Set<string> {
  const out = new Set([hostname().toLowerCase()]);
  for (const addrs of Object.values(networkInterfaces())) for (const a of addrs ?? []) out.add(a.address.toLowerCase().replace(/%.*$/, ''));
  return out;
}
