/**
 * Testing a topology with hstorm/testing, as Storm's Testing.completeTopology
 * does: the word-count example's spout is replaced by fixed sentences
 * (mockedSources), the topology runs on a LocalCluster with real worker
 * processes until every sentence is acked, and the test reads back what each
 * bolt emitted. Run with mocha (`npm test` runs it; alone:
 * `npm run build && npx mocha --no-config dist/examples/testing/word-count.test.js`).
 * In your own project: `import { completeTopology } from 'hstorm/testing'`
 * and give it the path of your topology module (.ts or .js).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { completeTopology } from 'hstorm/testing';

// The topology module under test: here the word-count example beside this file.
const WORD_COUNT = fileURLToPath(new URL('../word-count/index.js', import.meta.url));

describe('word count, tested with completeTopology', function () {
  this.timeout(120_000);

  it('splits every sentence into words and counts each word', async () => {
    const result = await completeTopology(WORD_COUNT, {
      mockedSources: { sentences: [['the cow jumped over the moon'], ['the man went to the store']] },
      config: { 'topology.workers': 1 },
    });
    assert.equal(result.acked.sentences, 2);
    assert.equal(result.failed.sentences, 0);
    // What the spout emitted, and what each bolt emitted from it (the order across tasks is not fixed: sort).
    assert.deepEqual(result.readTuples('sentences'), [['the cow jumped over the moon'], ['the man went to the store']]);
    const words = result.readTuples('split').map(([w]) => w as string);
    assert.deepEqual(words.sort(), 'the cow jumped over the moon the man went to the store'.split(' ').sort());
    // Each word's last count is how often it occurred.
    const counts = new Map<string, number>();
    for (const [word, count] of result.readTuples('count')) counts.set(word as string, Math.max(counts.get(word as string) ?? 0, count as number));
    assert.equal(counts.get('the'), 4);
    assert.equal(counts.get('cow'), 1);
  });
});
