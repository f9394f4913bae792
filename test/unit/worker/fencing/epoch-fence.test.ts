/**
 * The receiving side of fencing (worker/fencing/epoch-fence.ts), on a manual
 * clock: which senders' frames a worker admits as its assignment moves on.
 */
import assert from 'node:assert/strict';
import { EpochFence } from '../../../../worker/fencing/epoch-fence.js';
import { stampOf, tagOf, UNSTAMPED } from '../../../../worker/transport/frame-stamp.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const TOPOLOGY = 'ids-3-1764110000';
const GRACE = 5000;

function fenceAt(clock: ManualClock, epoch: number, workers: string[]): EpochFence {
  const f = new EpochFence(tagOf(TOPOLOGY), GRACE, () => clock.now());
  f.adopt(epoch, workers.map(tagOf));
  return f;
}

describe('EpochFence', () => {
  it('drops frames of another topology and unstamped ones as foreign, whatever their epoch', () => {
    const f = fenceAt(new ManualClock(), 2, ['sup-b:6700']);
    assert.equal(f.judge(stampOf('other-1-1', 'sup-b:6700', 2)), 'foreign');
    assert.equal(f.judge(stampOf('other-1-1', 'sup-b:6700', 9)), 'foreign');
    assert.equal(f.judge(UNSTAMPED), 'foreign');
  });

  it('admits the current and newer epochs from any worker of the topology (a peer may read the next assignment first)', () => {
    const f = fenceAt(new ManualClock(), 2, ['sup-b:6700']);
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-b:6700', 2)), 'admit');
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-c:6700', 3)), 'admit');
  });

  it('fences a stranded worker at once: an older epoch from a worker the assignment no longer holds', async () => {
    const clock = new ManualClock();
    const f = fenceAt(clock, 1, ['sup-b:6700', 'sup-c:6700']);
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-c:6700', 1)), 'admit');
    // nimbus moved sup-c's executors to sup-b: epoch 2 holds sup-b only.
    f.adopt(2, [tagOf('sup-b:6700'), tagOf('sup-b:6701')]);
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-c:6700', 1)), 'stale');
    await clock.advance(60_000);
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-c:6700', 1)), 'stale');
    // Back in the assignment at a newer epoch: admitted again.
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-c:6700', 3)), 'admit');
  });

  it('gives a worker still assigned the grace to catch up on a new epoch, then fences it', async () => {
    const clock = new ManualClock();
    const f = fenceAt(clock, 1, ['sup-b:6700', 'sup-c:6700']);
    f.adopt(2, [tagOf('sup-b:6700'), tagOf('sup-c:6700')]);
    const late = stampOf(TOPOLOGY, 'sup-c:6700', 1);
    assert.equal(f.judge(late), 'admit');
    await clock.advance(GRACE);
    assert.equal(f.judge(late), 'admit', 'at the grace exactly');
    await clock.advance(1);
    assert.equal(f.judge(late), 'stale');
  });

  it('restarts the grace only when the epoch changes, not when the same assignment is applied again', async () => {
    const clock = new ManualClock();
    const f = fenceAt(clock, 2, ['sup-b:6700']);
    await clock.advance(GRACE + 1);
    f.adopt(2, [tagOf('sup-b:6700')]);
    assert.equal(f.judge(stampOf(TOPOLOGY, 'sup-b:6700', 1)), 'stale');
  });
});
