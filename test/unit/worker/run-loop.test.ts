import assert from 'node:assert/strict';
import type { Executor } from '../../../worker/executor/executor.js';
import { RunLoop } from '../../../worker/run-loop.js';
import { waitFor } from '../../helpers/wait-for.js';

/** An executor with `work` slices to run; each slice does one. */
function fakeExecutor(work: number): Executor & { slices: number; pendingInput: number } {
  const ex = {
    slices: 0,
    queue: { length: 0, capacity: 16 },
    pendingInput: 0,
    ready: () => ex.slices < work,
    runSlice: () => {
      ex.slices++;
    },
  };
  return ex as unknown as Executor & { slices: number; pendingInput: number };
}

describe('worker/run-loop', () => {
  it('runs every ready executor until none is, then calls onIdle once', async () => {
    const a = fakeExecutor(3);
    const b = fakeExecutor(5);
    const idle: number[][] = [];
    const loop = new RunLoop([a, b], () => idle.push([a.slices, b.slices]));
    loop.wake();
    await waitFor('the loop to run dry', () => idle.length > 0, 30_000, 1);
    // onIdle comes only after the turn that left no executor ready, never between turns with work left.
    assert.deepEqual(idle, [[3, 5]]);
    await new Promise((r) => setImmediate(r));
    assert.equal(idle.length, 1, 'an idle loop does not spin');
  });

  it('calls onIdle again when new work wakes it and runs out', async () => {
    const executors: Executor[] = [fakeExecutor(1)];
    let idle = 0;
    const loop = new RunLoop(executors, () => idle++);
    loop.wake();
    await waitFor('the first idle', () => idle === 1, 30_000, 1);
    const late = fakeExecutor(2);
    executors.push(late);
    loop.wake();
    await waitFor('the second idle', () => idle === 2, 30_000, 1);
    assert.equal(late.slices, 2);
  });

  it("lifts a pause for a full task once an executor was held back for a peer in a turn; a pause past the overflow limit only once the task drains", async () => {
    const pausedFor = (why: 'full' | 'overflow') => {
      const task = fakeExecutor(0);
      task.pendingInput = 16; // its queue full
      let held = false;
      let turns = 0;
      const loop = new RunLoop([task], () => {}, () => false, () => {
        turns++;
        return held;
      });
      let lifted = false;
      void loop.holdReceiver([task], why).then(() => (lifted = true));
      return { task, loop, lifted: () => lifted, turns: () => turns, holdForPeer: () => (held = true) };
    };
    for (const why of ['full', 'overflow'] as const) {
      const p = pausedFor(why);
      p.loop.wake();
      await waitFor('a turn', () => p.turns() === 1, 30_000, 1);
      await Promise.resolve();
      assert.equal(p.lifted(), false, `${why}: still full, nothing held`);
      p.holdForPeer();
      p.loop.wake();
      await waitFor('a second turn', () => p.turns() === 2, 30_000, 1);
      await Promise.resolve();
      assert.equal(p.lifted(), why === 'full', `${why}: an executor held back for a peer ${why === 'full' ? 'lifts' : 'does not lift'} it`);
      p.task.pendingInput = 7; // below half its queue
      p.loop.wake();
      await waitFor('lifted once drained', () => p.lifted(), 30_000, 1);
    }
  });
});
