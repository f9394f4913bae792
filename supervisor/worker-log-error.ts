/**
 * The last error a worker wrote to its log before it died: the newest line at
 * error or fatal level (pino JSON, with its error's message and first stack
 * frame), or, when the worker died before its logger could write, the tail of
 * what Node itself printed (an uncaught exception's message). The supervisor
 * reports it with the worker's exit, so `describe` can say why a worker keeps
 * dying without anyone opening the log.
 */
import { errorStackHead, parseJsonLogLine } from '../common/log-line.js';
import { open } from 'node:fs/promises';

/** How much of the end of the log to look at. */
const TAIL_BYTES = 64 * 1024;

export async function lastErrorInLog(file: string): Promise<string | null> {
  const fh = await open(file, 'r').catch(() => null);
  if (!fh) return null;
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    return lastErrorIn(buf.toString('utf8'));
  } finally {
    await fh.close();
  }
}

/** The last error in a piece of worker log (exported for tests). */
export function lastErrorIn(text: string): string | null {
  const lines = text.split('\n').filter((l) => l.trim());
  const raw: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const json = parseJsonLogLine(line);
    if (!json) {
      // Node's own output, newest last: collect the contiguous block (an uncaught error and its stack).
      raw.unshift(line);
      continue;
    }
    if (raw.length) return rawBlock(raw);
    if (typeof json.level === 'number' && json.level >= 50) return describe(json);
  }
  return raw.length ? rawBlock(raw) : null;
}

function describe(o: Record<string, unknown>): string {
  const msg = typeof o.msg === 'string' ? o.msg : 'error';
  const head = errorStackHead(o.err, 3);
  if (!head) return msg;
  const stack = head.join('\n');
  return (stack ? `${msg}: ${stack}` : msg).slice(0, 2000);
}

function rawBlock(lines: string[]): string {
  // Node prints the throwing source line, a caret, then the error and its stack: keep the error and a few frames.
  const at = lines.findIndex((l) => /^\w*Error\b|^Error:/.test(l.trim()));
  const start = at >= 0 ? at : Math.max(0, lines.length - 4);
  return lines.slice(start, start + 4).join('\n').slice(0, 2000);
}
