/**
 * Files of records that one process appends and another reads as they grow: each record a 4-byte big-endian length
 * and then the record in the wire codec's format (worker/transport/wire-codec.ts). What a FeederSpout's feeder and its
 * tasks pass each other through (feeder-spout.ts): no socket, no ordering beyond the file's, and a reader that sees a
 * record still being appended leaves it for its next read.
 */
import { appendFileSync, closeSync, openSync, readSync } from 'node:fs';
import { decodeRecord, encodeRecord } from '../worker/index.js';

export function appendRecord(file: string, record: unknown): void {
  const body = encodeRecord(record);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  // One write call: a reader sees the record whole, or not yet, or cut (and waits for the rest).
  appendFileSync(file, Buffer.concat([head, body]));
}

/** Reads the records appended to one file since the last read. */
export class RecordReader {
  private offset: number;
  private fd: number | null = null;
  private pending = Buffer.alloc(0);

  /** `offset`: where to start (a restarted task goes on where it was). */
  constructor(
    readonly file: string,
    offset = 0,
  ) {
    this.offset = offset;
  }

  /** The records that are whole now, each with the file offset just past it (none while the file does not exist yet). */
  read(): { record: unknown; end: number }[] {
    if (this.fd === null) {
      try {
        this.fd = openSync(this.file, 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
    }
    const chunks: Buffer[] = [this.pending];
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let n = readSync(this.fd, buf, 0, buf.length, this.offset); n > 0; n = readSync(this.fd, buf, 0, buf.length, this.offset)) {
      chunks.push(Buffer.from(buf.subarray(0, n)));
      this.offset += n;
    }
    const data = chunks.length === 1 ? this.pending : Buffer.concat(chunks);
    // The file offset of data[0].
    const base = this.offset - data.length;
    const out: { record: unknown; end: number }[] = [];
    let at = 0;
    while (at + 4 <= data.length) {
      const len = data.readUInt32BE(at);
      if (at + 4 + len > data.length) break;
      out.push({ record: decodeRecord(data.subarray(at + 4, at + 4 + len)), end: base + at + 4 + len });
      at += 4 + len;
    }
    this.pending = Buffer.from(data.subarray(at));
    return out;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
