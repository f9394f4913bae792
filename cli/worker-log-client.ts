/**
 * The client of a supervisor's worker log server (supervisor/log-server.ts):
 * one chunk of one worker's log, with nimbus's secret when the CLI has one.
 * A connection that fails or times out is LogServerUnreachableError naming the
 * supervisor and address; an `{ error: { code, message } }` answer is rebuilt
 * as an HstormError with that code.
 */
import { bearerHeader } from '../common/security/bearer-token.js';
import { HstormError, reviveError } from '../common/errors.js';
import type { LogChunk } from '../supervisor/worker-log-files.js';

export type { LogChunk };

export interface LogServerAddress {
  supervisor: string;
  host: string;
  port: number;
}

/** A supervisor's log server did not answer (down, firewalled, wrong address advertised). */
export class LogServerUnreachableError extends HstormError {
  constructor(
    readonly server: LogServerAddress,
    detail: string,
  ) {
    super('HSTORM_ERR_CLI_LOGS_UNREACHABLE', `supervisor ${server.supervisor} does not answer at its log server ${server.host}:${server.port} (${detail})`);
  }
}

export type ChunkRequest = { lines: number } | { offset: number };

export class WorkerLogClient {
  constructor(
    private readonly secret: string | null,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly timeoutMs = 10_000,
  ) {}

  async chunk(server: LogServerAddress, topologyId: string, port: number, req: ChunkRequest): Promise<LogChunk> {
    const query = 'lines' in req ? `lines=${req.lines}` : `offset=${req.offset}`;
    const url = `http://${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}/api/v1/logs/${encodeURIComponent(topologyId)}/${port}?${query}`;
    let res: Response;
    try {
      res = await this.fetchImpl(url, { headers: this.secret === null ? {} : bearerHeader(this.secret), signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new LogServerUnreachableError(server, timedOut ? `no answer within ${this.timeoutMs / 1000} s` : (cause?.code ?? cause?.message ?? (err as Error).message));
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LogServerUnreachableError(server, `answered ${res.status} with non-JSON: ${text.slice(0, 120)}`);
    }
    if (!res.ok) {
      const e = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (e && typeof e.code === 'string' && typeof e.message === 'string') throw reviveError({ code: e.code, message: `supervisor ${server.supervisor}: ${e.message}` });
      throw new LogServerUnreachableError(server, `answered ${res.status}: ${text.slice(0, 120)}`);
    }
    return json as LogChunk;
  }
}
