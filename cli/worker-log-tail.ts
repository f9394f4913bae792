/**
 * Follows the worker log files of a local run (`<dir>/logs/<topology>/worker-<port>.log`,
 * pino JSON lines plus whatever Node itself prints on a crash) and hands every
 * line at or above a level to a callback, so `hstorm local` can show a bolt's
 * errors on the console instead of in a temp dir deleted on exit.
 * Polls: the files are written by other processes, and fs.watch is not
 * reliable on every file system.
 */
import { errorStackHead, parseJsonLogLine, rawLineLevel } from '../common/log-line.js';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface WorkerLogLine {
  /** pino level number (40 warn, 50 error, 60 fatal); a line of the process's own stderr is a warning when it says so, else 50 (common/log-line.ts rawLineLevel). */
  level: number;
  port: number;
  topologyId: string;
  component: string | null;
  task: number | null;
  msg: string;
  /** The error's message and first stack frames, when the line carries one. */
  err: string | null;
  time: number;
}

export const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

interface Followed {
  offset: number;
  partial: string;
}

export class WorkerLogTail {
  private readonly files = new Map<string, Followed>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  /** Lines at warn or above seen so far, by level. */
  readonly counts = { warn: 0, error: 0 };

  constructor(
    private readonly logsDir: string,
    private readonly onLine: (l: WorkerLogLine) => void,
    private readonly minLevel = 40,
  ) {}

  start(intervalMs = 250): void {
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref();
  }

  /** Reads what is new in every file (once more after the workers stopped, so their last words are shown). */
  poll(): Promise<void> {
    this.polling ??= this.readAll().finally(() => (this.polling = null));
    return this.polling;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
    await this.poll();
  }

  private async readAll(): Promise<void> {
    let topologies: string[];
    try {
      topologies = await readdir(this.logsDir);
    } catch {
      return; // no worker started yet
    }
    for (const topologyId of topologies) {
      let names: string[];
      try {
        names = await readdir(join(this.logsDir, topologyId));
      } catch {
        continue;
      }
      for (const name of names) {
        const m = /^worker-(\d+)\.log$/.exec(name);
        if (m) await this.readFile(join(this.logsDir, topologyId, name), topologyId, Number(m[1]));
      }
    }
  }

  private async readFile(path: string, topologyId: string, port: number): Promise<void> {
    let f = this.files.get(path);
    if (!f) this.files.set(path, (f = { offset: 0, partial: '' }));
    const fh = await open(path, 'r').catch(() => null);
    if (!fh) return;
    try {
      const buf = Buffer.alloc(1 << 16);
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, f.offset);
        if (bytesRead === 0) break;
        f.offset += bytesRead;
        const text = f.partial + buf.toString('utf8', 0, bytesRead);
        const lines = text.split('\n');
        f.partial = lines.pop() ?? '';
        for (const line of lines) this.handle(line, topologyId, port);
      }
    } finally {
      await fh.close();
    }
  }

  private handle(raw: string, topologyId: string, port: number): void {
    const line = parseWorkerLogLine(raw, topologyId, port);
    if (!line || line.level < this.minLevel) return;
    if (line.level >= 50) this.counts.error++;
    else this.counts.warn++;
    this.onLine(line);
  }
}

/** One log line as the console shows it; null for a blank line. Non-JSON lines are the process's own stderr: warnings when they say so, else errors. */
export function parseWorkerLogLine(raw: string, topologyId: string, port: number): WorkerLogLine | null {
  const text = raw.trim();
  if (!text) return null;
  const o = parseJsonLogLine(text);
  if (!o || typeof o.level !== 'number') {
    return { level: rawLineLevel(text), port, topologyId, component: null, task: null, msg: text, err: null, time: Date.now() };
  }
  const errText = errorStackHead(o.err, 4)?.join('\n') ?? null;
  return {
    level: o.level,
    port,
    topologyId,
    component: typeof o.component === 'string' ? o.component : null,
    task: typeof o.task === 'number' ? o.task : null,
    msg: typeof o.msg === 'string' ? o.msg : '',
    err: errText,
    time: typeof o.time === 'number' ? o.time : Date.now(),
  };
}
