/**
 * Values arrive as they left or the emit fails naming the culprit, the same whether the target task is in the
 * emitting worker or another (one worker: every target local; two with the even scheduler: one `check` task in the
 * spout's worker, one not); and a worker never crashes on a user's value.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import { untilAcked } from '../helpers/until-acked.js';
import type { RunSummary } from '../../cli/run-summary.js';

const FIXTURE = join(PACKAGE_ROOT, 'test/fixtures/values-topology');
const MESSAGES = 40;

function run(workers: number, kind: string, until: (s: RunSummary) => boolean): Promise<RunSummary> {
  return runLocal({
    module: FIXTURE,
    durationSec: 90,
    until,
    overrides: { 'topology.workers': workers, 'values.case': kind, 'values.messages': MESSAGES },
    clusterConfig: { 'nimbus.scheduler': 'even' },
  });
}

describe('values between workers', function () {
  this.timeout(240_000);

  for (const workers of [1, 2]) {
    it(`Map, a registered class, -0, Set and Date arrive as they left (${workers} worker${workers > 1 ? 's' : ''})`, async () => {
      const s = await run(workers, 'good', untilAcked(MESSAGES).until);
      assert.equal(s.workers, workers);
      assert.equal(s.acked, MESSAGES);
      const check = s.components.check!;
      assert.equal(check.counters?.['values.ok'], MESSAGES, JSON.stringify(check.counters));
      assert.equal(check.counters?.['values.changed'] ?? 0, 0);
      // Both paths were taken: by reference within the spout's worker, through the wire codec from it to the other.
      assert.ok((check.counters?.['values.ok.local'] ?? 0) > 0, 'some went to the check task in the spout\'s worker');
      if (workers === 2) assert.ok((check.counters?.['values.ok.remote'] ?? 0) > 0, 'some went to the check task in the other worker');
      else assert.equal(check.counters?.['values.ok.remote'] ?? 0, 0);
    });
  }

  for (const kind of ['unregistered', 'symbol', 'circular', 'function']) {
    it(`an emit with a ${kind} value is refused naming component, stream, field and type — in one worker and in two, and no worker dies`, async () => {
      const errors: string[] = [];
      for (const workers of [1, 2]) {
        // Every message's emit is refused: wait for the spout's error to show, then for the run to settle.
        const s = await run(workers, kind, (x) => x.components.shapes?.lastError !== undefined);
        assert.equal(s.workers, workers, 'every worker still beats');
        assert.equal(s.components.check!.executed, 0, 'nothing of it reached a bolt');
        const last = s.components.shapes!.lastError!;
        assert.match(last.error, /HSTORM_ERR_TOPOLOGY_EMIT|EmitError/);
        assert.match(last.error, /component "shapes" emitted .* in value 1 \("shape"\) on stream "default": it cannot travel between workers/);
        errors.push(last.error.split('\n')[0]!);
      }
      // The same words, whichever worker the target task is in.
      const what = errors.map((e) => /emitted (.*?) in value 1/.exec(e)?.[1]);
      assert.equal(what[0], what[1], errors.join('\n'));
      assert.match(what[0] ?? '', { unregistered: /an instance of class NotRegistered, which is not registered/, symbol: /a symbol/, circular: /a circular value .* at \.self/, function: /a function/ }[kind]!);
    });
  }
});
