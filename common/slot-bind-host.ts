/**
 * The address a worker's slot socket listens on: `supervisor.slots.bind.host`,
 * else the address peers reach the node at (`supervisor.host`), else
 * 127.0.0.1 — never every interface unless asked for. ZeroMQ binds to an IP
 * address or interface name only, so a host name is resolved first.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ConfigRecord } from './config/config.js';

/** The configured bind host, before name resolution (the supervisor's log server and its workers' slots share it). */
export function configuredSlotBindHost(clusterConfig: Pick<ConfigRecord, 'supervisor.slots.bind.host' | 'supervisor.host'>): string {
  return clusterConfig['supervisor.slots.bind.host'] ?? clusterConfig['supervisor.host'] ?? '127.0.0.1';
}

/** What ZeroMQ's `bind` takes: an IP literal (`*` for every interface). */
export async function resolveSlotBindHost(host: string): Promise<string> {
  if (host === '0.0.0.0' || host === '*') return '*';
  if (isIP(host)) return host;
  return (await lookup(host, { family: 4 })).address;
}
