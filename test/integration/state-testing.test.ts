/**
 * hstorm/testing's completeTopology on a topology with a stateful bolt: its
 * checkpoint spout never lets the topology go quiet, so completion is every
 * mocked tuple acked — which, its emits being anchored, means everything it
 * led to was processed (the count bolt's acks wait for a commit first) — and
 * the checkpoint stream is not captured as something a component emitted.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { completeTopology } from '../../testing/index.js';
import { PACKAGE_ROOT } from '../helpers/cluster-processes.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'stateful-topology.js');

describe('completeTopology with a stateful bolt', function () {
  this.timeout(180_000);

  it('completes once the mocked sentences are acked (after a commit), and reads back what the stateful bolt emitted', async () => {
    const result = await completeTopology(FIXTURE, {
      mockedSources: { sentences: [[1, 'w1 w8'], [2, 'w2 w1'], [3, 'w1 w3']] },
      config: { 'topology.workers': 1, 'stateful.dir': '/nonexistent', 'stateful.messages': 0 },
    });
    assert.equal(result.acked.sentences, 3);
    const last = new Map<string, number>();
    for (const [w, n] of result.readTuples('count')) last.set(w as string, Math.max(last.get(w as string) ?? 0, n as number));
    assert.deepEqual(Object.fromEntries([...last].sort()), { w1: 3, w2: 1, w3: 1, w8: 1 });
    assert.deepEqual(Object.keys(result.emitted).sort(), ['count', 'sentences', 'split'], 'no checkpoint stream captured');
    assert.ok((result.acked.__checkpointspout ?? 0) >= 1, 'a checkpoint completed');
  });
});
