/**
 * Storm 2's lambda components in two worker processes: a supplier spout emits each of its values exactly once (the
 * builder's call to tell it from a factory loses none), a (tuple, collector) lambda bolt transforms them, and on a
 * fed stream a lambda bolt's emits are anchored and acked on return while a consumer lambda that throws fails its
 * tuple — every message id's fate counted.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { completeTopology } from '../../testing/index.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { words } from '../fixtures/lambda-topology.js';

const MODULE = join(PACKAGE_ROOT, 'dist/test/fixtures/lambda-topology.js');

describe('lambda spouts and bolts (two worker processes)', function () {
  this.timeout(300_000);

  it('a supplier spout and lambda bolts do what Storm’s do: every value once, basic-bolt acking, a throw fails the tuple', async () => {
    const max = 200;
    const fates = new Map<unknown, string[]>();
    const record = (id: unknown, fate: string) => fates.set(id, [...(fates.get(id) ?? []), fate]);
    words.setAckFailDelegate({ ack: (id) => record(id, 'ack'), fail: (id) => record(id, 'fail') });
    const fed = ['cow', 'bad apple', 'moon', 'badger', 'jumped'];
    const run = completeTopology(MODULE, {
      config: { 'lambda.max': max },
      until: (soFar) => soFar.readTuples('double').length >= max && fates.size >= fed.length,
      timeoutMs: 240_000,
    });
    await words.waitForReader(120_000);
    fed.forEach((w, i) => words.feed([w], i));
    const result = await run;

    // The supplier's values: 0 … max − 1, each exactly once (sorted, duplicates kept), as field "lambda".
    const numbers = result.readTuples('numbers').map(([n]) => n as number).sort((a, b) => a - b);
    assert.deepEqual(numbers, Array.from({ length: max }, (_x, i) => i));
    assert.deepEqual(result.readTuples('double').map(([n]) => n as number).sort((a, b) => a - b), numbers.map((n) => 2 * n));
    assert.deepEqual(result.readTuples('upper').flat().sort(), fed.map((w) => w.toUpperCase()).sort());
    assert.deepEqual(result.readTuples('check'), [], 'a consumer emits nothing');
    assert.deepEqual(
      [...fates].sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [0, ['ack']],
        [1, ['fail']],
        [2, ['ack']],
        [3, ['fail']],
        [4, ['ack']],
      ],
    );
  });
});
