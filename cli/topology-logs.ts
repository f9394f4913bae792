/**
 * What `hstorm logs` reads and how it prints it: the topology's workers from
 * its assignment (those running an executor of one component when one is
 * named), each through its supervisor's log server; lines split and kept
 * whole across chunks; every line prefixed with the worker's host:port and,
 * for a component's line, component[task]. With a component named, lines
 * other components' tasks logged in the same worker are left out (the
 * worker's own lines stay: they say why it restarted).
 */
import { errorStackHead, parseJsonLogLine } from '../common/log-line.js';
import { HstormError } from '../common/errors.js';
import type { SupervisorSummary, TopologyDetail } from '../nimbus/index.js';
import type { ChunkRequest, LogChunk, LogServerAddress } from './worker-log-client.js';
import { LEVEL_NAMES, parseWorkerLogLine } from './worker-log-tail.js';

export interface LogTarget {
  topologyId: string;
  supervisor: string;
  /** The worker's host:port, as the assignment has it. */
  host: string;
  port: number;
  components: string[];
  /** Its supervisor's log server; null when the supervisor advertises none (or is not registered). */
  server: LogServerAddress | null;
}

/** The workers whose logs `hstorm logs <topology> [component]` reads. */
export function logTargets(detail: TopologyDetail, supervisors: readonly SupervisorSummary[], component?: string): LogTarget[] {
  if (component !== undefined && !(component in detail.components)) {
    const known = Object.keys(detail.components).sort();
    throw new HstormError('HSTORM_ERR_CLI_LOGS_UNKNOWN_COMPONENT', `topology ${detail.name} has no component "${component}"; its components: ${known.join(', ')}`);
  }
  const byId = new Map(supervisors.map((s) => [s.id, s]));
  const targets: LogTarget[] = [];
  for (const w of detail.workers) {
    const components = w.executors.map((e) => e.component);
    if (component !== undefined && !components.includes(component)) continue;
    const ls = byId.get(w.supervisor)?.logServer;
    targets.push({
      topologyId: detail.id,
      supervisor: w.supervisor,
      host: w.host,
      port: w.port,
      components,
      server: ls ? { supervisor: w.supervisor, host: ls.host, port: ls.port } : null,
    });
  }
  if (targets.length === 0) {
    throw new HstormError(
      'HSTORM_ERR_CLI_LOGS_NO_WORKERS',
      component === undefined
        ? `topology ${detail.name} has no worker assigned yet (status ${detail.status}); see hstorm describe ${detail.name}`
        : `no worker of topology ${detail.name} runs component "${component}" yet; see hstorm describe ${detail.name}`,
    );
  }
  return targets;
}

export interface LogLineOut {
  target: LogTarget;
  raw: string;
}

/**
 * How far one worker's log has been read. Lines are handed on whole: the text
 * after the last newline waits for the next chunk (or `flush`).
 */
export class WorkerLogCursor {
  offset: number | null = null;
  private partial = '';

  constructor(readonly target: LogTarget) {}

  /** The request that reads on from here: the tail first (`lines`), else everything from the start. */
  next(tailLines: number | null): ChunkRequest {
    if (this.offset !== null) return { offset: this.offset };
    return tailLines === null ? { offset: 0 } : { lines: tailLines };
  }

  /** Takes a chunk; returns its whole lines. `restarted`: the file shrank (replaced), reading began again at 0. */
  take(chunk: LogChunk): { lines: string[]; restarted: boolean } {
    const restarted = this.offset !== null && chunk.start < this.offset;
    if (restarted) this.partial = '';
    this.offset = chunk.end;
    const parts = (this.partial + chunk.text).split('\n');
    this.partial = parts.pop() ?? '';
    return { lines: parts.filter((l) => l.trim() !== ''), restarted };
  }

  /** More of the file is there than read (a page cap); read again at once. */
  static more(chunk: LogChunk): boolean {
    return chunk.end < chunk.size;
  }

  /** The last line when it never got its newline (end of a one-shot read, or a quiet follow). */
  flush(): string | null {
    const p = this.partial;
    this.partial = '';
    return p.trim() === '' ? null : p;
  }
}

/** Whether a line is shown when `component` is asked for: its own lines and the worker's untagged ones. */
export function lineWanted(raw: string, component: string | undefined): boolean {
  if (component === undefined) return true;
  const parsed = parseWorkerLogLine(raw, '', 0);
  return parsed === null || parsed.component === null || parsed.component === component;
}

const SHOWN_ELSEWHERE = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'component', 'task', 'topology', 'port', 'worker', 'err', 'v']);

/**
 * One line for a person: `host:port component[task] time LEVEL msg {other fields}`
 * with an error's message and first stack frames; a line that is not pino JSON
 * (Node's own crash output) as it is.
 */
export function formatLogLine(target: LogTarget, raw: string): string {
  const text = raw.trimEnd();
  const o = parseJsonLogLine(text);
  const where = `${target.host}:${target.port}`;
  if (!o || typeof o.level !== 'number') return `${where} ${text}`;
  const component = typeof o.component === 'string' ? `${o.component}${typeof o.task === 'number' ? `[${o.task}]` : ''}` : 'worker';
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString() : '';
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!SHOWN_ELSEWHERE.has(k)) extra[k] = v;
  const fields = Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : '';
  const stack = errorStackHead(o.err, 6);
  const err = stack ? `: ${stack[0]}${stack.slice(1).map((l) => `\n    ${l.trim()}`).join('')}` : '';
  return `${where} ${component} ${time} ${LEVEL_NAMES[o.level] ?? o.level} ${typeof o.msg === 'string' ? o.msg : ''}${fields}${err}`;
}

/** The line as a `--json` record: where it came from, the component and task when the line names them, the line itself. */
export function jsonLogLine(target: LogTarget, raw: string): Record<string, unknown> {
  const parsed = parseWorkerLogLine(raw, target.topologyId, target.port);
  return {
    supervisor: target.supervisor,
    host: target.host,
    port: target.port,
    component: parsed?.component ?? null,
    task: parsed?.task ?? null,
    line: raw,
  };
}
