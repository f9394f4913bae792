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
