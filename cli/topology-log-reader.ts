/**
 * Reads the logs of a topology's workers through their supervisors, once or
 * following. Following polls every worker's log from the byte offset it has
 * reached (GET …?offset=B, once a second by default) rather than holding a
 * stream open: a poll survives a supervisor or worker restart and a file
 * replaced under it, needs no connection per worker kept alive through
 * proxies, goes through the same secret check as any request, and costs an
 * idle log one small request a second. The worker list is re-read from nimbus
 * every few seconds, so a rebalance's new workers are followed too.
 *
 * A supervisor that does not answer is reported (once, and again when it
 * answers again) and its workers skipped; the others go on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HstormError } from '../common/errors.js';
import { isCode } from './error-codes.js';
import { lineWanted, WorkerLogCursor, type LogTarget } from './topology-logs.js';
import type { WorkerLogClient } from './worker-log-client.js';

export interface TopologyLogReaderOptions {
  client: WorkerLogClient;
  /** The workers to read, asked again every `refreshMs` while following. */
  targets: () => Promise<LogTarget[]>;
  component?: string;
  /** Start with the last N lines of each log; null: the whole log. */
  tailLines: number | null;
  /** Every line to show, in order per worker. */
  onLine: (target: LogTarget, raw: string) => void;
  /** A worker skipped because its supervisor did not answer (or refused); `null` when it answers again. */
  onProblem: (target: LogTarget, err: HstormError | null) => void;
  intervalMs?: number;
  refreshMs?: number;
}

function keyOf(t: LogTarget): string {
  return `${t.supervisor}|${t.port}`;
}

export class TopologyLogReader {
  private readonly cursors = new Map<string, WorkerLogCursor>();
  private readonly failing = new Map<string, HstormError>();

  constructor(private readonly o: TopologyLogReaderOptions) {}

  /** Reads every worker's log to its end once; throws when no supervisor answered. Returns the workers skipped. */
  async once(): Promise<Map<string, HstormError>> {
    const targets = await this.o.targets();
    await this.round(targets, false);
    for (const c of this.cursors.values()) {
      const last = c.flush();
      if (last !== null && lineWanted(last, this.o.component)) this.o.onLine(c.target, last);
    }
    if (this.failing.size === targets.length) throw allFailed([...this.failing.values()]);
    return new Map(this.failing);
  }

  /** Reads, then polls for new lines until `signal` aborts. */
  async follow(signal: AbortSignal): Promise<void> {
    let targets = await this.o.targets();
    let refreshedAt = Date.now();
    while (!signal.aborted) {
      if (Date.now() - refreshedAt >= (this.o.refreshMs ?? 5000)) {
        refreshedAt = Date.now();
        // Nimbus away for a moment: keep following the workers we know.
        targets = await this.o.targets().catch(() => targets);
      }
      await this.round(targets, true);
      try {
        await sleep(this.o.intervalMs ?? 1000, undefined, { signal });
      } catch {
        break; // Ctrl-C
      }
    }
  }

  /** One read of every target; lines are printed worker by worker once all answered (or failed). */
  private async round(targets: LogTarget[], following: boolean): Promise<void> {
    const live = new Set(targets.map(keyOf));
    for (const k of this.cursors.keys()) if (!live.has(k)) this.cursors.delete(k);
    const results = await Promise.all(targets.map((t) => this.read(t, following)));
    targets.forEach((t, i) => {
      const r = results[i]!;
      const k = keyOf(t);
      if (r instanceof HstormError) {
        if (!this.failing.has(k)) this.o.onProblem(t, r);
        this.failing.set(k, r);
        return;
      }
      if (this.failing.delete(k)) this.o.onProblem(t, null);
      for (const line of r) if (lineWanted(line, this.o.component)) this.o.onLine(t, line);
    });
  }

  private async read(t: LogTarget, following: boolean): Promise<string[] | HstormError> {
    if (t.server === null) {
      return new HstormError(
        'HSTORM_ERR_CLI_LOGS_NO_LOG_SERVER',
        `supervisor ${t.supervisor} advertises no log server (supervisor.logviewer.port is null there, the supervisor is gone, or it runs an older hstorm)`,
      );
    }
    let cursor = this.cursors.get(keyOf(t));
    if (!cursor) this.cursors.set(keyOf(t), (cursor = new WorkerLogCursor(t)));
    const lines: string[] = [];
    try {
      for (;;) {
        const chunk = await this.o.client.chunk(t.server, t.topologyId, t.port, cursor.next(this.o.tailLines));
        const got = cursor.take(chunk);
        if (got.restarted) lines.push(`(log of ${t.host}:${t.port} restarted from its beginning: the file was replaced)`);
        lines.push(...got.lines);
        if (!WorkerLogCursor.more(chunk)) break;
      }
      // A quiet follow shows a last line that never got its newline (a crash's last words).
      if (following && lines.length === 0) {
        const last = cursor.flush();
        if (last !== null) lines.push(last);
      }
      return lines;
    } catch (err) {
      // A worker that has not written its log yet: nothing to show, not a failure, while following.
      if (following && isCode(err, 'HSTORM_ERR_SUPERVISOR_LOG_NOT_FOUND')) return lines;
      if (err instanceof HstormError) return err;
      throw err;
    }
  }
}

/** Every supervisor failed: the shared code when they agree (all refused the secret), else unreachable. */
function allFailed(errors: HstormError[]): HstormError {
  const codes = new Set(errors.map((e) => e.code));
  const code = codes.size === 1 ? errors[0]!.code : 'HSTORM_ERR_CLI_LOGS_UNREACHABLE';
  const messages = [...new Set(errors.map((e) => e.message))];
  return new HstormError(code, `no worker log could be read: ${messages.join('; ')}`);
}
