/**
 * `POST /topologies` with a bundle, kept apart from the routes: the bundle is
 * checked against its sha256, inflated as a stream on zlib's thread pool —
 * only counting bytes, never holding the inflated code, and stopping as soon
 * as it passes `nimbus.bundle.max.inflated.mb` (a gzip bomb is refused with
 * 413, nimbus's memory and event loop untouched) — then stored and the
 * topology submitted. When the submit is refused, the stored bundle is
 * deleted again unless a running topology (or another upload in flight) uses
 * the same code.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { HstormError } from '../common/errors.js';
import { BundleInvalidError } from './errors.js';

/** The bundle inflates to more than nimbus accepts (HTTP 413). */
export class BundleTooLargeError extends HstormError {
  constructor(
    message: string,
    readonly limitBytes: number,
  ) {
    super('HSTORM_ERR_NIMBUS_BUNDLE_TOO_LARGE', message);
  }
}

/** Feeds zlib this much compressed input at a time, so each inflate step on the thread pool stays short. */
const INPUT_CHUNK = 64 * 1024;

/**
 * The inflated size of a gzip bundle, counted as it streams; rejects with
 * BundleTooLargeError once it passes `maxBytes`, with BundleInvalidError when
 * it is not gzip data. Never blocks the event loop for the whole bundle.
 */
export async function inflatedSize(gz: Uint8Array, maxBytes: number): Promise<number> {
  let total = 0;
  const counter = new Writable({
    write(chunk: Buffer, _enc, done) {
      total += chunk.length;
      if (total > maxBytes) {
        done(new BundleTooLargeError(`bundle inflates to more than nimbus.bundle.max.inflated.mb (${Math.round(maxBytes / 2 ** 20)} MiB); refused`, maxBytes));
      } else done();
    },
  });
  const chunks = function* () {
    for (let i = 0; i < gz.length; i += INPUT_CHUNK) yield gz.subarray(i, i + INPUT_CHUNK);
  };
  try {
    await pipeline(Readable.from(chunks()), createGunzip(), counter);
  } catch (err) {
    if (err instanceof BundleTooLargeError) throw err;
    throw new BundleInvalidError(`bundle is not valid gzip data: ${(err as Error).message}`);
  }
  return total;
}

/** Counts uploads in flight per bundle, so a refused submit never deletes code another request is about to use. */
export class UploadsInFlight {
  private readonly counts = new Map<string, number>();

  begin(sha256: string): void {
    this.counts.set(sha256, (this.counts.get(sha256) ?? 0) + 1);
  }

  /** Ends one upload; true when no other upload of the same bundle is in flight. */
  end(sha256: string): boolean {
    const n = (this.counts.get(sha256) ?? 1) - 1;
    if (n <= 0) this.counts.delete(sha256);
    else this.counts.set(sha256, n);
    return n <= 0;
  }
}
