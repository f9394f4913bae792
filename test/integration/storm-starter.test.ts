/**
 * storm-starter's topologies as a Storm user would test them with completeTopology: RollingTopWords (examples/
 * rolling-top-words: rolling counts on tick tuples, intermediate rankers, a total ranker; Rankings crossing workers)
 * correct with 1, 2 and 4 workers against a reference computed here; ExclamationTopology and WordCountTopology (its
 * split bolt in Python on Storm's storm.py).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { completeTopology, MockedSources, type CompletedTopology } from '../../testing/index.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { Rankings } from '../../examples/rolling-top-words/tools/rankings.js';
import { seededRandom } from '../../common/seeded-random.js';

const ROLLING = join(PACKAGE_ROOT, 'dist/examples/rolling-top-words/index.js');
const FIXTURES = join(PACKAGE_ROOT, 'dist/test/fixtures/storm-starter');

/** Words with distinct counts (no ties: the top 5 has one right order), in a seeded shuffle. */
const COUNTS: Record<string, number> = { nathan: 23, mike: 19, jackson: 15, golda: 11, bertels: 8, ike: 5, zoe: 3, kim: 1 };
const TOP_N = 5;

function shuffledWords(): string[] {
  const words = Object.entries(COUNTS).flatMap(([w, n]) => Array<string>(n).fill(w));
  const random = seededRandom(32);
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [words[i], words[j]] = [words[j]!, words[i]!];
  }
  return words;
}

/** The overall top N, computed here from the words the spout gets: [word, count], highest first. */
function reference(words: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, TOP_N);
}

/** The total ranker's latest rankings, as [word, count] (the captured values are Rankings, methods and all). */
function latestTop(r: CompletedTopology): [unknown, number][] | null {
  const emitted = r.readTuples('finalRanker');
  const last = emitted[emitted.length - 1]?.[0];
  if (last === undefined) return null;
  assert.ok(last instanceof Rankings, `the total ranker emitted a ${Object.prototype.toString.call(last)}, not a Rankings`);
  return last.getRankings().map((x) => [x.getObject(), x.getCount()]);
}

describe('storm-starter topologies', function () {
  this.timeout(300_000);

  for (const workers of [1, 2, 4]) {
    it(`RollingTopWords ranks the top ${TOP_N} words right with topology.workers=${workers}`, async () => {
      const words = shuffledWords();
      const expected = reference(words);
      const result = await completeTopology(ROLLING, {
        mockedSources: new MockedSources().addMockData('wordGenerator', ...words.map((w) => [w])),
        // A window far longer than the test (no count leaves it), counts and rankings emitted every second.
        config: { 'topology.workers': workers, 'rtw.window.secs': 600, 'rtw.emit.secs': 1, 'rtw.rank.emit.secs': 1, 'rtw.top.n': TOP_N },
        // Rankings are emitted on every tick, so the topology is never quiet: done when the total ranker has it right.
        until: (soFar) => JSON.stringify(latestTop(soFar)) === JSON.stringify(expected),
        timeoutMs: 180_000,
      });
      assert.deepEqual(latestTop(result), expected);
      assert.equal(result.acked.wordGenerator, words.length);
      // The rolling counts were emitted on ticks as [word, count in the window, window length so far].
      const counted = new Map<string, number>();
      for (const [w, n] of result.readTuples('counter') as [string, number, number][]) counted.set(w, Math.max(counted.get(w) ?? 0, n));
      assert.deepEqual(Object.fromEntries([...counted].sort()), Object.fromEntries(Object.entries(COUNTS).sort()));
      // Every intermediate ranking that reached the total ranker is a Rankings too.
      assert.ok(result.readTuples('intermediateRanker').every(([r]) => r instanceof Rankings));
    });
  }

  it('ExclamationTopology: every word twice exclaimed, each tuple anchored and acked', async () => {
    const words = ['nathan', 'mike', 'jackson', 'golda', 'bertels', 'nathan'];
    const result = await completeTopology(join(FIXTURES, 'exclamation.js'), { mockedSources: { word: words.map((w) => [w]) } });
    assert.equal(result.acked.word, words.length);
    assert.equal(result.failed.word, 0);
    assert.deepEqual(result.readTuples('exclaim1').flat().sort(), words.map((w) => `${w}!!!`).sort());
    assert.deepEqual(result.readTuples('exclaim2').flat().sort(), words.map((w) => `${w}!!!!!!`).sort());
  });

  it('WordCountTopology: the Python split bolt (storm.py) and the count bolt count every word', async () => {
    const sentences = ['the cow jumped over the moon', 'an apple a day keeps the doctor away', 'the man went to the store'];
    const result = await completeTopology(join(FIXTURES, 'word-count/index.js'), {
      mockedSources: { spout: sentences.map((s) => [s]) },
      config: { 'wc.spout': 2, 'wc.split': 2, 'wc.count': 3, 'topology.workers': 2 },
      timeoutMs: 120_000,
    });
    assert.equal(result.acked.spout, sentences.length);
    const words = sentences.flatMap((s) => s.split(' '));
    assert.deepEqual(result.readTuples('split').flat().sort(), [...words].sort());
    const expected = new Map<string, number>();
    for (const w of words) expected.set(w, (expected.get(w) ?? 0) + 1);
    const counted = new Map<string, number>();
    for (const [w, n] of result.readTuples('count') as [string, number][]) counted.set(w, Math.max(counted.get(w) ?? 0, n));
    assert.deepEqual(Object.fromEntries([...counted].sort()), Object.fromEntries([...expected].sort()));
  });
});
