import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import { largestGrowth, summarizeSnapshot, totalMb } from '../../../bench/support/heap-snapshot-diff.js';
import { makeTempDir, removeTempDir } from '../../../common/temp-dirs.js';

/** A worker thread holding `n` objects of a class of its own, and a real V8 heap snapshot of it. */
async function snapshotOf(dir: string, name: string, n: number): Promise<string> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    class LeakyThing { constructor(i) { this.i = i; this.label = 'thing-' + i; } }
    globalThis.kept = Array.from({ length: ${n} }, (_, i) => new LeakyThing(i));
    parentPort.postMessage('ready');
    setInterval(() => {}, 1000);
  `;
  const w = new Worker(code, { eval: true });
  try {
    await new Promise((resolve) => w.once('message', resolve));
    const file = join(dir, `${name}.heapsnapshot`);
    await pipeline(await w.getHeapSnapshot(), createWriteStream(file));
    return file;
  } finally {
    await w.terminate();
  }
}

describe('heap snapshot comparison', function () {
  this.timeout(120_000);
  let dir = '';
  before(async () => {
    dir = await makeTempDir('hstorm-heapdiff-');
  });
  after(async () => {
    await removeTempDir(dir);
  });

  it('counts objects per constructor in a real snapshot and finds the one that grew', async () => {
    const a = summarizeSnapshot(await snapshotOf(dir, 'a', 100));
    const b = summarizeSnapshot(await snapshotOf(dir, 'b', 20_000));
    assert.equal(a.get('LeakyThing')?.count, 100);
    assert.equal(b.get('LeakyThing')?.count, 20_000);
    assert.ok(totalMb(b) > totalMb(a));
    const top = largestGrowth(a, b, 5);
    const row = top.find((r) => r.name === 'LeakyThing');
    assert.ok(row, `LeakyThing among the largest growth: ${JSON.stringify(top)}`);
    assert.equal(row.countAfter - row.countBefore, 19_900);
    assert.ok(row.grewMb > 0);
  });

  it('refuses a file that is not a heap snapshot', async () => {
    const { writeFileSync } = await import('node:fs');
    const f = join(dir, 'not.heapsnapshot');
    writeFileSync(f, '{"hello": [1, 2, 3]}');
    assert.throws(() => summarizeSnapshot(f), /not a V8 heap snapshot/);
  });
});
