/**
 * Tick tuples end to end, in real worker processes: topology-wide and per component (getComponentConfiguration,
 * switched off with addConfiguration), counted apart from the data tuples, and never touching the spout's acks.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';

describe('tick tuples (two worker processes)', function () {
  this.timeout(180_000);

  it('reach every task of a ticking bolt, from the topology or the component config, and none of a bolt that turned them off', async () => {
    const messages = 60;
    const ticked = (s: Awaited<ReturnType<typeof runLocal>>, c: string) => s.components[c]?.ticks ?? 0;
    const summary = await runLocal({
      module: join(PACKAGE_ROOT, 'test/fixtures/tick-topology'),
      durationSec: 120,
      // Wait for the condition, not a time: at least 3 ticks per task of each ticking bolt, and every message done.
      until: (s) => s.acked >= messages && ticked(s, 'ticking') >= 6 && ticked(s, 'own') >= 3 && ticked(s, 'aware') >= 3,
      overrides: { 'tick.messages': messages },
    });
    assert.equal(summary.workers, 2);
    assert.equal(summary.acked, messages);
    assert.equal(summary.failed, 0);
    const c = summary.components;
    // Data tuples counted as data, ticks apart: executed is exactly the messages for each bolt.
    for (const id of ['ticking', 'own', 'quiet', 'aware']) assert.equal(c[id]!.executed, messages, `${id} executed`);
    assert.ok(ticked(summary, 'ticking') >= 6 && ticked(summary, 'own') >= 3, JSON.stringify({ ticking: c.ticking!.ticks, own: c.own!.ticks }));
    assert.equal(c.quiet!.ticks, undefined, 'addConfiguration(…, null) turned the topology-wide ticks off');
    assert.equal(c.ticking!.counters?.['seen.ticks'], c.ticking!.ticks);
    assert.equal(c.ticking!.counters?.['seen.data'], messages);
    assert.equal(c.quiet!.counters?.['seen.ticks'] ?? 0, 0);
    // Acked: the data tuples of the two bolts' executes; the ticks are not acked.
    assert.equal(c.ticking!.acked, messages);
    // The tick-aware bolt: every tick to onTickTuple, every data tuple to process (which acks it), nothing else.
    assert.equal(c.aware!.counters?.['seen.ticks'], c.aware!.ticks);
    assert.equal(c.aware!.counters?.['seen.data'], messages);
    assert.equal(c.aware!.acked, messages);
    assert.equal(c.aware!.failed ?? 0, 0);
  });
});
