import assert from 'node:assert/strict';
import type { Executor } from '../../../worker/executor/executor.js';
import { RunLoop } from '../../../worker/run-loop.js';
import { waitFor } from '../../helpers/wait-for.js';

/** An executor with `work` slices to run; each slice does one. */
function fakeExecutor(work: number): Executor & { slices: number } {
  const ex = {
    slices: 0,
    queue: { length: 0, capacity: 16 },
    ready: () => ex.slices < work,
    runSlice: () => {
      ex.slices++;
    },
  };
  return ex as unknown as Executor & { slices: number };
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
});
