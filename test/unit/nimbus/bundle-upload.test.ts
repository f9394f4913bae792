/**
 * Nimbus's bundle check (nimbus/bundle-upload.ts): the inflated size is
 * counted as a stream and refused past the limit (a gzip bomb), garbage is
 * "not gzip", and uploads in flight are counted per bundle.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { BundleTooLargeError, UploadsInFlight, inflatedSize } from '../../../nimbus/bundle-upload.js';
import { BundleInvalidError } from '../../../nimbus/errors.js';

describe('nimbus bundle upload checks', () => {
  it('counts the inflated size of a bundle within the limit', async () => {
    const code = Buffer.from('export default 42;\n'.repeat(10_000));
    assert.equal(await inflatedSize(gzipSync(code), 2 ** 20), code.length);
  });

  it('refuses a gzip bomb once it passes the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(32 * 2 ** 20), { level: 9 });
    assert.ok(bomb.length < 64 * 1024);
    await assert.rejects(inflatedSize(bomb, 2 ** 20), (e: unknown) => e instanceof BundleTooLargeError && e.code === 'HSTORM_ERR_NIMBUS_BUNDLE_TOO_LARGE' && /nimbus\.bundle\.max\.inflated\.mb \(1 MiB\)/.test(e.message));
  });

  it('calls garbage and a truncated bundle not gzip', async () => {
    await assert.rejects(inflatedSize(Buffer.from('not gzip at all'), 2 ** 20), (e: unknown) => e instanceof BundleInvalidError && /not valid gzip/.test(e.message));
    const gz = gzipSync(Buffer.from('export default 1;\n'.repeat(1000)));
    await assert.rejects(inflatedSize(gz.subarray(0, gz.length - 10), 2 ** 20), BundleInvalidError);
  });

  it('counts uploads in flight per bundle', () => {
    const u = new UploadsInFlight();
    u.begin('a');
    u.begin('a');
    u.begin('b');
    assert.equal(u.end('a'), false, 'another upload of a is in flight');
    assert.equal(u.end('a'), true);
    assert.equal(u.end('b'), true);
  });
});
