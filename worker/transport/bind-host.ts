/**
 * The address a worker's slot socket listens on: `supervisor.slots.bind.host`,
 * else the address peers reach the node at (`supervisor.host`), else
 * 127.0.0.1 — never every interface unless asked for. ZeroMQ binds to an IP
 * address or interface name only, so a host name is resolved first.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** The configured bind host, before name resolution. */
export function configuredSlotBindHost(clusterConfig: Readonly<Record<string, unknown>>): string {
  return (clusterConfig['supervisor.slots.bind.host'] as string | null | undefined) ?? (clusterConfig['supervisor.host'] as string | null | undefined) ?? '127.0.0.1';
}

/** What ZeroMQ's `bind` takes: an IP literal (`*` for every interface). */
export async function resolveSlotBindHost(host: string): Promise<string> {
  if (host === '0.0.0.0' || host === '*') return '*';
  if (isIP(host)) return host;
  return (await lookup(host, { family: 4 })).address;
}
