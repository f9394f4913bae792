/**
 * The checkpoint protocol's pure parts: the spout's transaction states and
 * actions (Storm's CheckPointState table), reading checkpoint tuples, and the
 * barrier a bolt waits at until a checkpoint came from every input task.
 */
import assert from 'node:assert/strict';
import { Fields } from '../../../topology-sdk/fields.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { CHECKPOINT_STREAM } from '../../../common/topology-def.js';
import { asTxState, nextAction, nextTxState, readCheckpoint, type TxState } from '../../../topology-sdk/internal/checkpoint-protocol.js';
import { CheckpointBarrier } from '../../../topology-sdk/internal/checkpoint-barrier.js';

const tx = (txid: number, phase: TxState['phase']): TxState => ({ txid, phase });

describe('checkpoint protocol: states and actions', () => {
  it('a checkpoint goes COMMITTED n → PREPARING n+1 (PREPARE) → COMMITTING n+1 (COMMIT) → COMMITTED n+1', () => {
    let s = tx(4, 'COMMITTED');
    assert.equal(nextAction(s, false), 'PREPARE');
    s = nextTxState(s, false);
    assert.deepEqual(s, tx(5, 'PREPARING'));
    assert.equal(nextAction(s, false), 'PREPARE');
    s = nextTxState(s, false);
    assert.deepEqual(s, tx(5, 'COMMITTING'));
    assert.equal(nextAction(s, false), 'COMMIT');
    assert.deepEqual(nextTxState(s, false), tx(5, 'COMMITTED'));
  });

  it('recovery rolls a preparing transaction back and a committing one forward, then INITSTATE', () => {
    assert.equal(nextAction(tx(5, 'PREPARING'), true), 'ROLLBACK');
    assert.deepEqual(nextTxState(tx(5, 'PREPARING'), true), tx(4, 'COMMITTED'));
    assert.equal(nextAction(tx(5, 'COMMITTING'), true), 'COMMIT');
    assert.deepEqual(nextTxState(tx(5, 'COMMITTING'), true), tx(5, 'COMMITTED'));
    assert.equal(nextAction(tx(5, 'COMMITTED'), true), 'INITSTATE');
    assert.deepEqual(nextTxState(tx(5, 'COMMITTED'), true), tx(5, 'COMMITTED'), 'INITSTATE acked: recovery is over');
  });

  it('reads [txid, action] and refuses anything else', () => {
    const f = new Fields(['txid', 'action']);
    const t = (values: unknown[]) => new RuntimeTuple(values, f, '__checkpointspout', CHECKPOINT_STREAM, 9, null);
    assert.deepEqual(readCheckpoint(t([3, 'COMMIT'])), { txid: 3, action: 'COMMIT' });
    for (const bad of [[3], [3, 'DROP'], ['3', 'COMMIT'], [1.5, 'PREPARE'], [3, 'PREPARE', 1], [null, null]]) assert.equal(readCheckpoint(t(bad)), null, JSON.stringify(bad));
    assert.deepEqual(asTxState({ txid: 2, phase: 'COMMITTING' }), tx(2, 'COMMITTING'));
    for (const bad of [null, 'x', { txid: 'a', phase: 'COMMITTED' }, { txid: 1, phase: 'DONE' }]) assert.equal(asTxState(bad), null);
  });
});

describe('checkpoint barrier', () => {
  it('goes once every input task has sent the action and txid; a repeat from one task does not stand in for another', () => {
    const b = new CheckpointBarrier(new Set([1, 2, 3]));
    assert.equal(b.arrive('PREPARE', 1, 1), 'wait');
    assert.equal(b.arrive('PREPARE', 1, 1), 'wait', 'the retry of task 1 counts once');
    assert.equal(b.arrive('PREPARE', 1, 2), 'wait');
    assert.equal(b.arrive('COMMIT', 1, 3), 'wait', 'another action is another barrier');
    assert.equal(b.arrive('PREPARE', 1, 3), 'go');
    b.acted('PREPARE', 1);
    // A new round of the same action and txid starts over (the spout sent it again after a failure).
    assert.equal(b.arrive('PREPARE', 1, 1), 'wait');
  });

  it('older transactions are stale once a newer one was acted on; after a rollback of n, n itself is not', () => {
    const b = new CheckpointBarrier(new Set([7]));
    assert.equal(b.arrive('PREPARE', 5, 7), 'go');
    b.acted('PREPARE', 5);
    assert.equal(b.arrive('PREPARE', 4, 7), 'stale');
    assert.equal(b.arrive('ROLLBACK', 5, 7), 'go');
    b.acted('ROLLBACK', 5);
    assert.equal(b.arrive('INITSTATE', 4, 7), 'go');
    assert.equal(b.arrive('PREPARE', 5, 7), 'go');
  });

  it('ignores a task that does not send it the checkpoint stream', () => {
    const b = new CheckpointBarrier(new Set([1]));
    assert.equal(b.arrive('PREPARE', 1, 99), 'stale');
    assert.equal(b.arrive('PREPARE', 1, 1), 'go');
  });

  it('keeps a bounded number of partial arrivals (a lost tuple does not grow it for ever)', () => {
    const b = new CheckpointBarrier(new Set([1, 2]));
    for (let i = 0; i < 500; i++) assert.equal(b.arrive('PREPARE', i, 1), 'wait');
    assert.ok((b as unknown as { arrived: Map<string, unknown> }).arrived.size <= 64);
  });
});
