/**
 * The checkpoint spout (topology-sdk/internal/checkpoint-spout.ts) driven by
 * hand: a manual clock, a memory (or flaky) store, a collector that records
 * what it sends, and acks and fails delivered as the worker's spout executor
 * would. It must store each step before sending it, run recovery at start,
 * step through prepare and commit at the interval, recover after a failure
 * (rolling back a prepare, rolling a commit forward), and back off while its
 * store is down. Its own timer runs on the manual clock too: a step due while
 * the test moves the clock is sent then.
 */
import assert from 'node:assert/strict';
import type { SpoutOutputCollector } from 'hstorm';
import { CHECKPOINT_COMPONENT, CHECKPOINT_STREAM } from '../../../common/topology-def.js';
import { MemoryStateStore, type StateStore } from '../../../common/state-store/index.js';
import { CheckpointSpout } from '../../../topology-sdk/internal/checkpoint-spout.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import { decodeState, encodeState } from '../../../topology-sdk/internal/state-codec.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { FlakyStateStore } from '../../helpers/flaky-state-store.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';

interface Sent {
  txid: number;
  action: string;
  messageId: unknown;
}

const NS = '{test:__checkpointspout:0}';

async function opened(store: StateStore = new MemoryStateStore(), intervalMs = 1000) {
  const clock = new ManualClock(0);
  const spout = new CheckpointSpout({ clock });
  const sent: Sent[] = [];
  const errors: unknown[] = [];
  const collector: SpoutOutputCollector = {
    emit(a: unknown, b?: unknown, c?: unknown) {
      const { stream, values, messageId } = readEmitArgs('spout', CHECKPOINT_COMPONENT, a, b, c);
      assert.equal(stream, CHECKPOINT_STREAM);
      sent.push({ txid: values[0] as number, action: values[1] as string, messageId });
      return [1];
    },
    emitDirect() {},
    reportError: (err) => errors.push(err),
  };
  const ctx = fakeContext({ component: CHECKPOINT_COMPONENT, taskId: 9, tasks: [9], stateStore: store });
  spout.open({ 'topology.state.checkpoint.interval.ms': intervalMs }, ctx, collector);
  let seen = 0;
  /**
   * Calls nextTuple and lets the store step finish; returns what the spout sent since the last look (from this call,
   * or from its own timer while the test moved the clock).
   */
  const tick = async (): Promise<Sent | undefined> => {
    spout.nextTuple();
    await settle();
    const fresh = sent.length > seen ? sent.at(-1) : undefined;
    seen = sent.length;
    return fresh;
  };
  const ack = async (s: Sent) => {
    spout.ack(s.messageId);
    await settle();
  };
  return { spout, sent, errors, clock, store, tick, ack };
}

async function storedTx(store: StateStore): Promise<unknown> {
  const [v] = await store.get(NS, [encodeState('__state')]);
  return v ? decodeState(v) : null;
}

describe('CheckpointSpout', () => {
  it('starts with recovery (INITSTATE of the stored transaction), then checkpoints every interval: PREPARE, COMMIT', async () => {
    const s = await opened();
    assert.equal(await s.tick(), undefined, 'the first call loads the transaction');
    assert.deepEqual(await storedTx(s.store), { txid: 0, phase: 'COMMITTED' });
    const init = (await s.tick())!;
    assert.deepEqual([init.txid, init.action], [0, 'INITSTATE']);
    assert.equal(await s.tick(), undefined, 'one checkpoint tuple out at a time');
    await s.ack(init);
    const prepare = (await s.tick())!;
    assert.deepEqual([prepare.txid, prepare.action], [1, 'PREPARE'], 'the first checkpoint goes at once');
    assert.deepEqual(await storedTx(s.store), { txid: 1, phase: 'PREPARING' }, 'stored before it was sent');
    await s.ack(prepare);
    const commit = (await s.tick())!;
    assert.deepEqual([commit.txid, commit.action], [1, 'COMMIT'], 'sent from the ack, not a later nextTuple');
    assert.deepEqual(await storedTx(s.store), { txid: 1, phase: 'COMMITTING' });
    await s.ack(commit);
    assert.deepEqual(await storedTx(s.store), { txid: 1, phase: 'COMMITTED' });
    assert.equal(await s.tick(), undefined, 'the interval has not passed');
    await s.clock.advance(999);
    assert.equal(await s.tick(), undefined);
    await s.clock.advance(1);
    assert.deepEqual((await s.tick())!.action, 'PREPARE');
    const m = s.spout.metrics();
    assert.equal(m.lastCommittedTxid, 1);
    assert.equal(m.commits, 1);
    assert.equal(m.recoveries, 1);
    assert.equal(m.role, 'checkpoint');
  });

  it('a failed prepare is rolled back, then INITSTATE, then the same transaction is prepared again', async () => {
    const s = await opened();
    await s.tick();
    await s.ack((await s.tick())!);
    const prepare = (await s.tick())!;
    s.spout.fail(prepare.messageId, { kind: 'timeout', afterMs: 30000 });
    assert.equal(await s.tick(), undefined, 'backing off');
    await s.clock.advance(100);
    const rollback = (await s.tick())!;
    assert.deepEqual([rollback.txid, rollback.action], [1, 'ROLLBACK']);
    await s.ack(rollback);
    assert.deepEqual(await storedTx(s.store), { txid: 0, phase: 'COMMITTED' });
    const init = (await s.tick())!;
    assert.deepEqual([init.txid, init.action], [0, 'INITSTATE']);
    await s.ack(init);
    assert.equal(await s.tick(), undefined, 'the next prepare waits for the interval from the last one');
    await s.clock.advance(900);
    const again = (await s.tick())!;
    assert.deepEqual([again.txid, again.action], [1, 'PREPARE']);
    assert.equal(s.spout.metrics().failures, 1);
    assert.equal(s.spout.metrics().recoveries, 2);
  });

  it('a restarted spout rolls a committing transaction forward', async () => {
    const store = new MemoryStateStore();
    await store.write(NS, [[encodeState('__state'), encodeState({ txid: 5, phase: 'COMMITTING' })]]);
    const s = await opened(store);
    await s.tick();
    const commit = (await s.tick())!;
    assert.deepEqual([commit.txid, commit.action], [5, 'COMMIT']);
    await s.ack(commit);
    assert.deepEqual(await storedTx(store), { txid: 5, phase: 'COMMITTED' });
    assert.deepEqual((await s.tick())!.action, 'INITSTATE');
  });

  it('backs off while its store is down (100 ms doubling, at most 2 s), and goes on once it answers', async () => {
    const store = new FlakyStateStore();
    store.down = true;
    const s = await opened(store, 10_000);
    await s.tick();
    assert.equal(store.calls.length, 1);
    await s.tick();
    assert.equal(store.calls.length, 1, 'no retry before the back-off');
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before: number = store.calls.length;
      let waited = 0;
      while (store.calls.length === before) {
        await s.clock.advance(50);
        waited += 50;
        await s.tick();
      }
      waits.push(waited);
    }
    assert.deepEqual(waits, [100, 200, 400, 800, 1600, 2000, 2000]);
    assert.equal(s.sent.length, 0);
    assert.equal(s.errors.length, 1, 'reported once, not every retry');
    store.down = false;
    await s.clock.advance(2000);
    await s.tick();
    await s.tick();
    assert.deepEqual(s.sent.at(-1)!.action, 'INITSTATE');
  });

  it('reports a stored transaction that does not decode, and starts over', async () => {
    const store = new MemoryStateStore();
    await store.write(NS, [[encodeState('__state'), new Uint8Array([0xc1])]]);
    const s = await opened(store);
    await s.tick();
    assert.equal((s.errors[0] as { code: string }).code, 'HSTORM_ERR_STATESTORE_CORRUPT');
    assert.match((s.errors[0] as Error).message, /does not hold a transaction; starting over from transaction 0/);
    assert.deepEqual((await s.tick())!.action, 'INITSTATE');
  });

  it('ignores an ack or fail of anything but the tuple out now', async () => {
    const s = await opened();
    await s.tick();
    const init = (await s.tick())!;
    s.spout.ack(12345);
    s.spout.fail(6789);
    await settle();
    assert.equal(await s.tick(), undefined, 'still waiting for INITSTATE');
    await s.ack(init);
    assert.equal((await s.tick())!.action, 'PREPARE');
  });
});
