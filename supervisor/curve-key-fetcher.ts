/**
 * Gets a topology's CURVE key pair from nimbus (hstorm.messaging.curve) over
 * its authenticated API — never from ZooKeeper — for the supervisor to hand
 * to the topology's workers at launch. Cached per topology (80 bytes each) for
 * the supervisor's life, so restarts of a worker need no round trip.
 */
import type { ClusterState } from '../common/cluster-state.js';
import type { Logger } from '../common/logger.js';
import { nimbusAddress } from './nimbus-address.js';
import { curveKeysSchema, type CurveKeys } from '../common/security/curve-keys.js';

export interface CurveKeyFetcherOptions {
  state: ClusterState;
  /** Used when no nimbus has registered itself in the store. */
  nimbusHost: string;
  nimbusPort: number;
  /** Sends nimbus's secret (common/security/authorized-fetch.ts). */
  fetchImpl: typeof fetch;
  log: Logger;
}

export class CurveKeyFetcher {
  private readonly cache = new Map<string, Promise<CurveKeys>>();

  constructor(private readonly o: CurveKeyFetcherOptions) {}

  keysFor(topologyId: string): Promise<CurveKeys> {
    let p = this.cache.get(topologyId);
    if (!p) {
      p = this.download(topologyId);
      this.cache.set(topologyId, p);
      p.catch(() => this.cache.delete(topologyId));
    }
    return p;
  }

  private async download(topologyId: string): Promise<CurveKeys> {
    const { host, port } = await nimbusAddress(this.o.state, { host: this.o.nimbusHost, port: this.o.nimbusPort });
    const url = `http://${host}:${port}/api/v1/topologies/${encodeURIComponent(topologyId)}/curve-keys`;
    const res = await this.o.fetchImpl(url);
    const text = await res.text();
    if (!res.ok) throw new Error(`cannot get the CURVE keys of ${topologyId} from ${url}: HTTP ${res.status}: ${text.slice(0, 300)}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    const parsed = curveKeysSchema.safeParse(json);
    if (!parsed.success) throw new Error(`nimbus at ${url} answered no CURVE key pair: ${text.slice(0, 100)}`);
    this.o.log.info({ topology: topologyId }, 'CURVE keys received from nimbus');
    return parsed.data;
  }
}
