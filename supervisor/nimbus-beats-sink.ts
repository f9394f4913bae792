/**
 * Delivers the supervisor's worker-liveness reports to nimbus over its HTTP
 * API (`POST /api/v1/supervisors/:id/worker-beats`). Where nimbus answers is
 * read from ZooKeeper once (supervisor/nimbus-address.ts) and kept: this runs
 * every second, and the address changes only when nimbus moves, which shows
 * as a failed send — after which the next send looks it up again.
 */
import type { ClusterState } from '../common/cluster-state.js';
import type { WorkerBeatsReport, WorkerBeatsSink } from '../common/worker-beats-report.js';
import { nimbusAddress } from './nimbus-address.js';

export interface NimbusBeatsSinkOptions {
  state: ClusterState;
  /** Used when no nimbus has registered itself in the store. */
  nimbusHost: string;
  nimbusPort: number;
  /** Sends nimbus's secret (common/security/authorized-fetch.ts). */
  fetchImpl: typeof fetch;
  /** A send not answered within this long fails (the reporter then tries again next period). */
  timeoutMs: number;
}

export function nimbusBeatsSink(o: NimbusBeatsSinkOptions): WorkerBeatsSink {
  let base: string | null = null;
  return async (report: WorkerBeatsReport): Promise<void> => {
    if (base === null) {
      const { host, port } = await nimbusAddress(o.state, { host: o.nimbusHost, port: o.nimbusPort });
      base = `http://${host}:${port}`;
    }
    const url = `${base}/api/v1/supervisors/${encodeURIComponent(report.supervisorId)}/worker-beats`;
    try {
      const res = await o.fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(report),
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      // Read the (empty or error) body so the connection goes back to the pool.
      const text = await res.text();
      if (!res.ok) throw new Error(`nimbus at ${url} refused the worker heartbeats: HTTP ${res.status}: ${text.slice(0, 300)}`);
    } catch (err) {
      base = null;
      throw err;
    }
  };
}
