/**
 * Reading a worker's log file for the log server (`hstorm logs`): which file
 * a (topology, port) names, refusing anything that would leave the worker log
 * directory, and reading either its last N lines or the bytes from an offset.
 *
 * Path safety: the topology id must look like one nimbus makes (letters,
 * digits, `. _ -`, not starting with a dot) and the port must be a port, so no
 * request names `..` or a separator; the file's real path (symlinks resolved)
 * must still lie under the real log directory, so a symlink planted in it
 * cannot point elsewhere; and only regular files are read.
 */
import { open, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { LogNotFoundError, LogPathError } from './errors.js';

const TOPOLOGY_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/** A chunk of a log file: bytes [start, end) of a file `size` bytes long. */
export interface LogChunk {
  topologyId: string;
  port: number;
  /** The file's size when it was read. */
  size: number;
  start: number;
  end: number;
  text: string;
}

/** Largest chunk one request returns; a reader pages on with `offset = end`. */
export const MAX_CHUNK_BYTES = 1 << 20;

export class WorkerLogFiles {
  constructor(private readonly logDir: string) {}

  /** The real path of a worker's log file, or an error saying why it is not served. */
  async resolve(topologyId: string, rawPort: string | number): Promise<string> {
    if (!TOPOLOGY_ID.test(topologyId)) {
      throw new LogPathError(`invalid topology id "${topologyId.slice(0, 80)}"; allowed: letters, digits, ". _ -", not starting with "."`);
    }
    const port = Number(rawPort);
    if (!/^\d{1,5}$/.test(String(rawPort)) || port < 1 || port > 65535) throw new LogPathError(`invalid port "${String(rawPort).slice(0, 20)}"; allowed: 1–65535`);
    const wanted = join(this.logDir, topologyId, `worker-${port}.log`);
    let real: string;
    let root: string;
    try {
      [real, root] = await Promise.all([realpath(wanted), realpath(this.logDir)]);
    } catch {
      throw new LogNotFoundError(`no log of topology ${topologyId}'s worker on port ${port} on this node`);
    }
    if (!real.startsWith(root + sep)) throw new LogPathError(`the log of ${topologyId}:${port} resolves outside the worker log directory; refused`);
    const st = await stat(real);
    if (!st.isFile()) throw new LogPathError(`the log of ${topologyId}:${port} is not a regular file; refused`);
    return real;
  }

  /**
   * Bytes from `offset` (at most `maxBytes`, cut back to the last whole line
   * when the file goes on and a newline is in the chunk). An offset past the end means the file
   * was replaced or truncated: reading starts again at 0.
   */
  async fromOffset(topologyId: string, port: number, offset: number, maxBytes = MAX_CHUNK_BYTES): Promise<LogChunk> {
    const path = await this.resolve(topologyId, port);
    const fh = await open(path, 'r');
    try {
      const size = (await fh.stat()).size;
      const start = offset > size ? 0 : offset;
      const len = Math.min(maxBytes, size - start);
      const buf = Buffer.alloc(len);
      const { bytesRead } = len > 0 ? await fh.read(buf, 0, len, start) : { bytesRead: 0 };
      let cut = bytesRead;
      if (start + bytesRead < size) {
        const nl = lastNewline(buf, bytesRead - 1);
        if (nl >= 0) cut = nl + 1;
      }
      return { topologyId, port, size, start, end: start + cut, text: buf.toString('utf8', 0, cut) };
    } finally {
      await fh.close();
    }
  }

  /** The last `lines` lines, within the last `maxBytes` bytes of the file. */
  async tail(topologyId: string, port: number, lines: number, maxBytes = MAX_CHUNK_BYTES): Promise<LogChunk> {
    const path = await this.resolve(topologyId, port);
    const fh = await open(path, 'r');
    try {
      const size = (await fh.stat()).size;
      const from = Math.max(0, size - maxBytes);
      const buf = Buffer.alloc(size - from);
      const { bytesRead } = buf.length > 0 ? await fh.read(buf, 0, buf.length, from) : { bytesRead: 0 };
      // To the end of the file: a last line without its newline yet counts as a line (the reader completes it from `end`).
      const end = bytesRead;
      // Cut by maxBytes: the first line may be a tail of one; it is not shown.
      const first = from > 0 ? Math.min(end, buf.indexOf(0x0a) + 1) : 0;
      let start = end;
      for (let seen = 0; seen < lines && start > first; seen++) start = Math.max(first, lastNewline(buf, start - 2) + 1);
      return { topologyId, port, size, start: from + start, end: from + end, text: buf.toString('utf8', start, end) };
    } finally {
      await fh.close();
    }
  }
}

/** Index of the last newline at or before `at`; -1 when none (Buffer.lastIndexOf would read a negative `at` from the end). */
function lastNewline(buf: Buffer, at: number): number {
  return at < 0 ? -1 : buf.lastIndexOf(0x0a, at);
}
