/**
 * Loud start-up warnings for a daemon that listens beyond loopback with a
 * door left open: a nimbus API without a secret runs anyone's code, worker
 * slots without CURVE accept anyone's tuples. Pure, so tests can ask what a
 * config would warn about.
 */
import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 and `localhost`: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && mapped[1]!.startsWith('127.');
}

export interface ExposureInput {
  /** What listens, for the message ("nimbus HTTP API", "worker slots"). */
  what: string;
  host: string;
  /** The protections that would close this door, each with whether it is on. */
  protections: { name: string; on: boolean }[];
}

/** One warning line per exposed door with a protection off; empty when all is well. */
export function exposureWarnings(doors: ExposureInput[]): string[] {
  const out: string[] = [];
  for (const d of doors) {
    if (isLoopback(d.host)) continue;
    const off = d.protections.filter((p) => !p.on).map((p) => p.name);
    if (off.length === 0) continue;
    out.push(
      `SECURITY: ${d.what} listens on ${d.host}, reachable from the network, with ${off.join(' and ')} off: ` +
        'anyone who can reach it can act on this cluster. Turn the protection on or bind to 127.0.0.1 (docs/security.md).',
    );
  }
  return out;
}

/**
 * Protections that lean on each other: supervisors send nimbus's secret to the
 * nimbus address they read in ZooKeeper, so with ZooKeeper open anyone who can
 * write it can point them at a fake nimbus and collect the secret (and serve
 * them code whose sha256 it also wrote).
 */
export function configWarnings(config: Readonly<Record<string, unknown>>): string[] {
  const secret = config['nimbus.auth.secret'] !== null || config['nimbus.auth.secret.file'] !== null;
  const zk = config['hstorm.zookeeper.auth.payload'] !== null || config['hstorm.zookeeper.auth.payload.file'] !== null;
  if (secret && !zk) {
    return [
      'SECURITY: nimbus.auth.secret is set but hstorm.zookeeper.auth.payload is not: whoever can write ZooKeeper can point supervisors at another nimbus, ' +
        'learn the secret and hand them code. Turn on ZooKeeper ACLs too (docs/security.md).',
    ];
  }
  return [];
}
