/**
 * Per-task backpressure's two halves (worker/backpressure/): a worker
 * announces which of its tasks are overloaded — at once when a peer's tuples
 * find one full, or when one drains below half, again every second while one
 * is, and relief once more —
 * and a worker told so holds for exactly those tasks, forgets a status its
 * sender stopped renewing, and drops one that speaks for another worker's
 * tasks or is not a status at all.
 */
import assert from 'node:assert/strict';
import { LocalOverload, RESEND_MS } from '../../../../worker/backpressure/local-overload.js';
import { RemoteOverload, STALE_MS } from '../../../../worker/backpressure/remote-overload.js';
import { BACKPRESSURE_STREAM, decodeBackpressureStatus, encodeBackpressureStatus } from '../../../../worker/backpressure/backpressure-message.js';
import { BoundedQueue } from '../../../../worker/executor/bounded-queue.js';
import type { Executor } from '../../../../worker/executor/executor.js';
import type { WireTuple } from '../../../../worker/transport/wire-codec.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

/** The part of an executor LocalOverload reads: its task, whether it takes tuples, its queue and what waits for it. */
function fakeExecutor(task: number, capacity: number, takesTuples = true): Executor {
  const queue = new BoundedQueue<unknown>(capacity);
  return {
    task,
    takesTuples,
    queue,
    get pendingInput() {
      return queue.length;
    },
  } as unknown as Executor;
}

function fill(ex: Executor, n: number): void {
  for (let i = 0; i < n; i++) (ex.queue as BoundedQueue<unknown>).push(i);
}

function drain(ex: Executor, n: number): void {
  for (let i = 0; i < n; i++) ex.queue.shift();
}

describe('worker/backpressure: overloaded tasks announced and held for', () => {
  describe('LocalOverload (this worker’s tasks)', () => {
    let sent: WireTuple[];
    let a: Executor;
    let b: Executor;
    let overload: LocalOverload;
    const lastStatus = () => decodeBackpressureStatus(sent.at(-1)![3] as unknown[]);

    beforeEach(() => {
      sent = [];
      a = fakeExecutor(7, 8);
      b = fakeExecutor(9, 8);
      overload = new LocalOverload('sup:6700', (t) => sent.push(t));
    });

    it('announces a task the moment its queue fills from the network, and counts what went past it', () => {
      fill(a, 7);
      overload.queued(a);
      assert.equal(sent.length, 0, 'not full yet');
      fill(a, 3);
      overload.queued(a);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]![2], BACKPRESSURE_STREAM);
      assert.deepEqual(lastStatus(), { worker: 'sup:6700', overloaded: [7] });
      assert.equal(overload.overflowMax, 2);
      overload.queued(a);
      assert.equal(sent.length, 1, 'announced once, not per frame');
      assert.equal(overload.overloadEvents, 1);
    });

    it('leaves a task filled by local producers to the receiver, and relieves a task only below half its queue', () => {
      fill(b, 8);
      overload.update();
      assert.equal(sent.length, 0, 'full from this worker alone: its own producers hold; a peer hears when its tuples find it full');
      overload.queued(b);
      assert.deepEqual(lastStatus()?.overloaded, [9]);
      drain(b, 4);
      overload.update();
      assert.equal(sent.length, 1, 'at half it is still overloaded');
      drain(b, 1);
      overload.update();
      assert.equal(sent.length, 2);
      assert.deepEqual(lastStatus()?.overloaded, [], 'relieved');
      assert.deepEqual(overload.tasks(), []);
    });

    it('resends the status every second while a task is overloaded, relief once more, then nothing', async () => {
      const clock = new ManualClock();
      overload.start(clock);
      fill(a, 8);
      overload.queued(a);
      await clock.advance(RESEND_MS); // a status just went out: not repeated yet
      assert.equal(sent.length, 1);
      await clock.advance(RESEND_MS);
      await clock.advance(RESEND_MS);
      assert.equal(sent.length, 3);
      assert.deepEqual(lastStatus()?.overloaded, [7]);
      drain(a, 8);
      overload.update();
      assert.equal(sent.length, 4);
      await clock.advance(RESEND_MS); // relief just went out
      await clock.advance(RESEND_MS); // relief once more
      assert.equal(sent.length, 5);
      assert.deepEqual(lastStatus()?.overloaded, []);
      await clock.advance(5 * RESEND_MS);
      assert.equal(sent.length, 5, 'quiet once relieved and repeated');
      overload.stop();
    });
  });

  describe('RemoteOverload (the peers’ tasks)', () => {
    const holder = new Map([
      [3, 'sup:6701'],
      [4, 'sup:6701'],
      [5, 'sup:6702'],
    ]);
    let clock: ManualClock;
    let remote: RemoteOverload;
    const status = (worker: string, tasks: number[]) => encodeBackpressureStatus({ worker, overloaded: tasks })[3] as unknown[];

    beforeEach(() => {
      clock = new ManualClock();
      remote = new RemoteOverload((t) => holder.get(t), clock);
      remote.start();
    });
    afterEach(() => remote.stop());

    it('holds for the tasks a worker names, and for no other; a new status from it replaces the old', () => {
      assert.ok(remote.apply(status('sup:6701', [3])));
      assert.ok(remote.apply(status('sup:6702', [5])));
      assert.equal(remote.holds(3), true);
      assert.equal(remote.holds(4), false);
      assert.equal(remote.holds(5), true);
      assert.equal(remote.heldChecks, 2);
      assert.ok(remote.apply(status('sup:6701', [4])));
      assert.deepEqual([remote.holds(3), remote.holds(4), remote.holds(5)], [false, true, true]);
      assert.ok(remote.apply(status('sup:6701', [])));
      assert.deepEqual(remote.tasks(), [5]);
      assert.equal(remote.statusesReceived, 4);
    });

    it('forgets a status its worker stopped renewing', async () => {
      remote.apply(status('sup:6701', [3, 4]));
      await clock.advance(STALE_MS / 2);
      remote.apply(status('sup:6702', [5]));
      await clock.advance(STALE_MS / 2 + RESEND_MS);
      assert.deepEqual([remote.holds(3), remote.holds(4), remote.holds(5)], [false, false, true]);
      await clock.advance(STALE_MS);
      assert.deepEqual(remote.tasks(), []);
    });

    it('drops a status for another worker’s tasks, an unknown task, or garbage, and keeps what it had', () => {
      remote.apply(status('sup:6701', [3]));
      for (const bad of [status('sup:6702', [3]), status('sup:6701', [99]), ['sup:6701'], ['sup:6701', [-1]], [7, []], ['', []], ['sup:6701', ['3']]]) {
        assert.equal(remote.apply(bad), false, JSON.stringify(bad));
      }
      assert.equal(remote.statusesDropped, 7);
      assert.equal(remote.holds(3), true);
    });
  });
});
