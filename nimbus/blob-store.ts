/**
 * Nimbus's blob directory: topology bundles stored as `<dir>/<sha256>.gz`,
 * content-addressed so a re-upload of the same code is free and a supervisor
 * can verify what it downloads. Writes go through a temp file + rename so a
 * crash never leaves a half-written blob under its final name.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflatedSize } from './bundle-upload.js';
import { BundleInvalidError } from './errors.js';

const SHA256 = /^[0-9a-f]{64}$/;

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Checks a gzip bundle against its claimed checksum and that it inflates
 * within `maxInflatedBytes` (a truncated upload fails here, not in a worker;
 * a gzip bomb is refused without being held in memory). Returns the inflated size.
 */
export async function verifyBundle(gz: Uint8Array, sha256: string, maxInflatedBytes: number): Promise<number> {
  if (!SHA256.test(sha256)) throw new BundleInvalidError(`sha256 must be 64 lowercase hex digits, got ${JSON.stringify(sha256)}`);
  const actual = sha256Hex(gz);
  if (actual !== sha256) {
    throw new BundleInvalidError(`bundle checksum mismatch: the upload hashes to ${actual}, the request says ${sha256}`);
  }
  return inflatedSize(gz, maxInflatedBytes);
}

export class BlobStore {
  constructor(readonly dir: string) {}

  pathOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw new BundleInvalidError(`not a blob key: ${JSON.stringify(sha256)}`);
    return join(this.dir, `${sha256}.gz`);
  }

  /** Verifies and stores a bundle; returns its key. */
  async put(gz: Uint8Array, sha256: string, maxInflatedBytes: number): Promise<string> {
    await verifyBundle(gz, sha256, maxInflatedBytes);
    await mkdir(this.dir, { recursive: true });
    const final = this.pathOf(sha256);
    const tmp = `${final}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, gz);
    await rename(tmp, final);
    return sha256;
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await stat(this.pathOf(sha256));
      return true;
    } catch {
      return false;
    }
  }

  async get(sha256: string): Promise<Buffer> {
    return readFile(this.pathOf(sha256));
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }
}
