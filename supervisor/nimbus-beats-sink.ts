/**
 * Delivers the supervisor's worker-liveness reports to nimbus over its HTTP
 * API (`POST /api/v1/supervisors/:id/worker-beats`). Where nimbus answers is
 * read from ZooKeeper once (supervisor/nimbus-address.ts) and kept: this runs
 * every second, and the address changes only when nimbus moves, which shows
 * as a failed send — after which a send looks it up again, at most every
 * RESOLVE_EVERY_MS: while nimbus is down, a thousand supervisors must not
 * read its znode a thousand times a second.
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

const RESOLVE_EVERY_MS = 10_000;

export function nimbusBeatsSink(o: NimbusBeatsSinkOptions, now: () => number = Date.now): WorkerBeatsSink {
  let base: string | null = null;
  let failed = false;
  let resolvedAt = -Infinity;
  return async (report: WorkerBeatsReport): Promise<void> => {
    if (base === null || (failed && now() - resolvedAt >= RESOLVE_EVERY_MS)) {
      const { host, port } = await nimbusAddress(o.state, { host: o.nimbusHost, port: o.nimbusPort });
      base = `http://${host}:${port}`;
      resolvedAt = now();
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
      failed = false;
    } catch (err) {
      failed = true;
      throw err;
    }
  };
}
