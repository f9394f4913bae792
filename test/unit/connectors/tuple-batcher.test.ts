/** TupleBatcher: batches by size or time, one write at a time, and backpressure when the next batch is full too. */
import assert from 'node:assert/strict';
import { batchOptionsSchema, TupleBatcher } from '../../../connectors/common/tuple-batcher.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';

/** A write the test finishes by hand. */
function controlledWrites() {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  const write = (b: number[]) =>
    new Promise<void>((res) => {
      batches.push(b);
      finish.push(res);
    });
  return { batches, finish, write };
}

describe('connectors: TupleBatcher', () => {
  it('writes a batch when it is full, and the next gathers while one is written', async () => {
    const clock = new ManualClock();
    const w = controlledWrites();
    const b = new TupleBatcher(batchOptionsSchema.parse({ size: 3, flushMs: 1000 }), { write: w.write }, clock);
    for (const i of [1, 2]) assert.equal(b.add(i), undefined);
    assert.equal(w.batches.length, 0);
    assert.equal(b.add(3), undefined, 'nothing is being written: no wait');
    assert.deepEqual(w.batches, [[1, 2, 3]]);
    assert.equal(b.add(4), undefined);
    assert.equal(b.add(5), undefined);
    const wait = b.add(6);
    assert.ok(wait instanceof Promise, 'a full batch while one is written: the caller waits');
    let released = false;
    void wait.then(() => (released = true));
    await settle();
    assert.equal(released, false);
    w.finish[0]!();
    await settle();
    assert.equal(released, true);
    assert.deepEqual(w.batches, [[1, 2, 3], [4, 5, 6]], 'the full batch was handed over as the first finished');
  });

  it('writes a batch flushMs after its first tuple, and one whose time came while another was written right after it', async () => {
    const clock = new ManualClock();
    const w = controlledWrites();
    const b = new TupleBatcher(batchOptionsSchema.parse({ size: 100, flushMs: 20 }), { write: w.write }, clock);
    void b.add(1);
    await clock.advance(19);
    assert.equal(w.batches.length, 0);
    void b.add(2);
    await clock.advance(1);
    assert.deepEqual(w.batches, [[1, 2]]);
    void b.add(3);
    await clock.advance(50);
    assert.equal(w.batches.length, 1, 'one write at a time');
    w.finish[0]!();
    await settle();
    assert.deepEqual(w.batches, [[1, 2], [3]]);
    w.finish[1]!();
    await settle();
    assert.equal(clock.pendingTimers, 0, 'nothing gathering: no timer left');
  });

  it('flush writes what is gathered and waits for every write', async () => {
    const done: number[][] = [];
    const b = new TupleBatcher(batchOptionsSchema.parse({ size: 2, flushMs: 1000 }), { write: async (batch: number[]) => void done.push(batch) }, new ManualClock());
    for (const i of [1, 2, 3]) await b.add(i);
    await b.flush();
    assert.deepEqual(done, [[1, 2], [3]]);
    assert.equal(b.waiting, 0);
  });

  it('writes a second batch beside the first only when the writer lets the two overlap', async () => {
    const w = controlledWrites();
    // Batches overlap when they share no odd number (think: no key).
    const b = new TupleBatcher(
      batchOptionsSchema.parse({ size: 2, flushMs: 1000 }),
      { write: w.write, maxWrites: 2, mayOverlap: (next: readonly number[], writing: readonly (readonly number[])[]) => !next.some((n) => n % 2 === 1 && writing.some((x) => x.includes(n))) },
      new ManualClock(),
    );
    void b.add(1);
    void b.add(2);
    void b.add(3);
    assert.equal(b.add(4), undefined, 'disjoint from the batch being written: starts beside it');
    assert.deepEqual(w.batches, [[1, 2], [3, 4]]);
    void b.add(5);
    const wait = b.add(6);
    assert.ok(wait instanceof Promise, 'two writes already: the third waits');
    w.finish[0]!();
    await wait;
    assert.deepEqual(w.batches, [[1, 2], [3, 4], [5, 6]]);
    void b.add(5);
    const blocked = b.add(8);
    assert.ok(blocked instanceof Promise, '5 is in a batch being written: this one may not overtake it');
    w.finish[1]!();
    await settle();
    assert.equal(w.batches.length, 3, 'still waiting for the batch holding 5');
    w.finish[2]!();
    await blocked;
    assert.deepEqual(w.batches.at(-1), [5, 8]);
  });
});
