/**
 * The HTTP client of nimbus's API that `hstorm submit/list/describe/kill/…`
 * use. A refused connection becomes NimbusUnreachableError naming host:port;
 * an `{ error: { code, message } }` answer is rebuilt as an HstormError with
 * that code, so commands print nimbus's own message.
 */
import type { Config } from '../common/config/index.js';
import { bearerHeader } from '../common/security/bearer-token.js';
import { nimbusSecret } from '../common/security/secrets.js';
import { HstormError, NimbusUnreachableError, reviveError } from '../common/errors.js';
import type { SubmitRequest, SubmitResult, TopologyStatusView, TopologyTimeseries } from '../nimbus/index.js';
import type { SupervisorSummary, TopologyDetail, TopologySummary } from '../nimbus/index.js';
import type { ClusterSummaryView } from '../ui/index.js';

export class NimbusClient {
  constructor(
    readonly host: string,
    readonly port: number,
    private readonly fetchImpl: typeof fetch = fetch,
    /** nimbus.auth.secret: sent as `Authorization: Bearer` with every request. */
    private readonly secret: string | null = null,
  ) {}

  static fromConfig(config: Config): NimbusClient {
    return new NimbusClient(config['nimbus.host'], config['nimbus.http.port'], fetch, nimbusSecret(config));
  }

  get baseUrl(): string {
    return `http://${this.host}:${this.port}/api/v1`;
  }

  async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      const auth = this.secret === null ? {} : bearerHeader(this.secret);
      res = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers: { ...auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new NimbusUnreachableError(this.host, this.port, cause?.code ?? cause?.message ?? (err as Error).message);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      throw new HstormError('HSTORM_ERR_CLI_NIMBUS_RESPONSE', `nimbus at ${this.host}:${this.port} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      const e = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (e && typeof e.code === 'string' && typeof e.message === 'string') throw reviveError({ code: e.code, message: e.message });
      throw new HstormError('HSTORM_ERR_CLI_NIMBUS_RESPONSE', `nimbus answered ${res.status}: ${text.slice(0, 200)}`);
    }
    return json as T;
  }

  /** Storm UI's cluster summary (hstorm's own figures under `hstorm`). */
  summary(): Promise<ClusterSummaryView> {
    return this.request('GET', '/cluster/summary');
  }

  async supervisors(): Promise<SupervisorSummary[]> {
    return (await this.request<{ supervisors: SupervisorSummary[] }>('GET', '/supervisors')).supervisors;
  }

  async topologies(): Promise<TopologySummary[]> {
    return (await this.request<{ topologies: TopologySummary[] }>('GET', '/topologies')).topologies;
  }

  describe(name: string): Promise<TopologyDetail> {
    return this.request('GET', `/topologies/${encodeURIComponent(name)}`);
  }

  /** The split spouts' γ, δ and latencies over time, as nimbus sampled them from heartbeats. */
  timeseries(name: string, since?: number): Promise<TopologyTimeseries> {
    return this.request('GET', `/topologies/${encodeURIComponent(name)}/timeseries${since === undefined ? '' : `?since=${since}`}`);
  }

  submit(req: SubmitRequest): Promise<SubmitResult> {
    return this.request('POST', '/topologies', req);
  }

  kill(name: string, waitSecs?: number): Promise<TopologyStatusView> {
    return this.request('POST', `/topologies/${encodeURIComponent(name)}/kill`, waitSecs === undefined ? {} : { waitSecs });
  }

  activate(name: string): Promise<TopologyStatusView> {
    return this.request('POST', `/topologies/${encodeURIComponent(name)}/activate`, {});
  }

  deactivate(name: string): Promise<TopologyStatusView> {
    return this.request('POST', `/topologies/${encodeURIComponent(name)}/deactivate`, {});
  }

  setLogLevel(name: string, level: string, timeoutSecs?: number): Promise<TopologyStatusView & { logLevel: { level: string; until: number | null } | null }> {
    return this.request('POST', `/topologies/${encodeURIComponent(name)}/log-level`, { level, ...(timeoutSecs !== undefined && { timeoutSecs }) });
  }

  rebalance(name: string, opts: { workers?: number; waitSecs?: number; executors?: Record<string, number> }): Promise<TopologyStatusView> {
    return this.request('POST', `/topologies/${encodeURIComponent(name)}/rebalance`, opts);
  }
}
