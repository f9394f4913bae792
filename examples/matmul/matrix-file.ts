/**
 * The file MatrixReader reads and generate.ts writes: pairs of n×n float32
 * matrices behind a small header, all little-endian.
 *
 *   offset 0   "HSMM" (4 bytes)      magic
 *          4   uint32 version (1)
 *          8   uint32 n              matrix dimension
 *         12   uint32 count          pairs in the file
 *         16   count × (A then B), each n·n float32 row-major
 *
 * A flat binary file and not msgpack: a 1024² pair is 8 MiB, and a reader
 * that seeks to pair i and reads it straight into a Float32Array copies it
 * once; a spout task reads only the pairs it owns.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { randomMatrix, seededRandom } from './matrix.js';

export const MATRIX_FILE_MAGIC = 'HSMM';
export const MATRIX_FILE_VERSION = 1;
export const HEADER_BYTES = 16;
/** Dimensions the generator accepts (the paper's range). */
export const MIN_DIM = 32;
export const MAX_DIM = 1024;

export interface MatrixFileHeader {
  n: number;
  count: number;
}

export interface GenerateOptions {
  n: number;
  count: number;
  out: string;
  /** Seed of the deterministic generator (default 1). */
  seed?: number;
}

/** Writes `count` random pairs of n×n matrices; returns the file's size in bytes. */
export function writeMatrixFile(opts: GenerateOptions): number {
  const { n, count } = opts;
  if (!Number.isInteger(n) || n < MIN_DIM || n > MAX_DIM) throw new RangeError(`--dim must be an integer in [${MIN_DIM}, ${MAX_DIM}], got ${String(n)}`);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`--count must be an integer ≥ 1, got ${String(count)}`);
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MATRIX_FILE_MAGIC, 0, 'latin1');
  header.writeUInt32LE(MATRIX_FILE_VERSION, 4);
  header.writeUInt32LE(n, 8);
  header.writeUInt32LE(count, 12);
  const rand = seededRandom(opts.seed ?? 1);
  const fd = openSync(opts.out, 'w');
  try {
    writeSync(fd, header);
    for (let i = 0; i < 2 * count; i++) writeSync(fd, toLittleEndian(randomMatrix(n, rand)));
  } finally {
    closeSync(fd);
  }
  return HEADER_BYTES + count * pairBytes(n);
}

/** Bytes of one pair (A and B). */
export function pairBytes(n: number): number {
  return 2 * n * n * 4;
}

/** Reads pairs by index; one open file per reader. */
export class MatrixFileReader {
  readonly header: MatrixFileHeader;
  private fd: number | null;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    const buf = Buffer.alloc(HEADER_BYTES);
    const got = readSync(this.fd, buf, 0, HEADER_BYTES, 0);
    const magic = buf.toString('latin1', 0, 4);
    if (got < HEADER_BYTES || magic !== MATRIX_FILE_MAGIC) {
      this.close();
      throw new Error(`${path} is not a matrix file (expected the "${MATRIX_FILE_MAGIC}" header written by examples/matmul/generate.js)`);
    }
    const version = buf.readUInt32LE(4);
    if (version !== MATRIX_FILE_VERSION) {
      this.close();
      throw new Error(`${path}: matrix file version ${version}; this reader knows version ${MATRIX_FILE_VERSION}`);
    }
    this.header = { n: buf.readUInt32LE(8), count: buf.readUInt32LE(12) };
  }

  /** Pair i (0 ≤ i < count). */
  read(i: number): { a: Float32Array; b: Float32Array } {
    if (this.fd === null) throw new Error(`${this.path}: reader is closed`);
    const { n, count } = this.header;
    if (!(i >= 0 && i < count)) throw new RangeError(`pair ${i} is outside the file's ${count} pairs`);
    const bytes = pairBytes(n);
    const buf = Buffer.alloc(bytes);
    const got = readSync(this.fd, buf, 0, bytes, HEADER_BYTES + i * bytes);
    if (got < bytes) throw new Error(`${this.path}: truncated at pair ${i} (read ${got} of ${bytes} bytes)`);
    const half = n * n;
    return { a: fromLittleEndian(buf, 0, half), b: fromLittleEndian(buf, half * 4, half) };
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The format is little-endian whatever the host; on a little-endian host (all we run on) this is a view, not a copy. */
function toLittleEndian(m: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(m.buffer, m.byteOffset, m.byteLength);
  const out = Buffer.alloc(m.byteLength);
  m.forEach((v, i) => out.writeFloatLE(v, i * 4));
  return out;
}

function fromLittleEndian(buf: Buffer, offset: number, length: number): Float32Array {
  const out = new Float32Array(length);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(buf.subarray(offset, offset + length * 4));
  else for (let i = 0; i < length; i++) out[i] = buf.readFloatLE(offset + i * 4);
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
