import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pickTwoChoice } from '../../../../worker/routing/load/two-choice.js';
import type { LoadView } from '../../../../worker/routing/load/task-load.js';
import { seededRandom } from '../../../../common/seeded-random.js';

/** A view over fixed waits (null: unknown), recording what was sent where. */
function fixedView(waits: Map<number, number | null>): LoadView & { sent: number[] } {
  const sent: number[] = [];
  return {
    sent,
    waitMs: (t) => waits.get(t) ?? null,
    loadFraction: () => null,
    noteSent: (t) => sent.push(t),
  };
}

/** Replays the given draws in order, so a test knows which two tasks were compared. */
function draws(...xs: number[]): () => number {
  let i = 0;
  return () => xs[i++ % xs.length]!;
}

describe('worker/load two-choice', () => {
  it('of the two drawn tasks, sends to the one with the lower estimated wait', () => {
    const view = fixedView(new Map([[1, 5], [2, 50], [3, 1]]));
    // draws pick index 1 (task 2), then index 0 of the rest (task 1)
    assert.equal(pickTwoChoice([1, 2, 3], view, draws(0.4, 0.1)), 1);
    assert.deepEqual(view.sent, [1]);
    // task 3 vs task 2: 3 is lower
    assert.equal(pickTwoChoice([1, 2, 3], view, draws(0.9, 0.6)), 3);
  });

  it('falls back to the first draw (random routing) when a figure is unknown', () => {
    const view = fixedView(new Map<number, number | null>([[1, 100], [2, null]]));
    assert.equal(pickTwoChoice([1, 2], view, draws(0.1, 0.0)), 1);
    assert.equal(pickTwoChoice([1, 2], view, draws(0.9, 0.0)), 2);
  });

  it('property: the pick is a target, never the worse of its two draws, and a strictly slowest task is never picked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 2, maxLength: 12 }),
        fc.array(fc.double({ min: 0, max: 0.999999, noNaN: true }), { minLength: 2, maxLength: 2 }),
        (waitList, rs) => {
          const tasks = waitList.map((_, i) => 10 + i);
          const waits = new Map(tasks.map((t, i) => [t, waitList[i]!]));
          const seen: number[] = [];
          const view = fixedView(waits);
          const recording: LoadView = { ...view, waitMs: (t) => (seen.push(t), view.waitMs(t)) };
          const pick = pickTwoChoice(tasks, recording, draws(...rs));
          assert.ok(tasks.includes(pick));
          assert.equal(seen.length, 2);
          assert.notEqual(seen[0], seen[1], 'two distinct tasks are compared');
          assert.ok(seen.includes(pick));
          const other = seen[0] === pick ? seen[1]! : seen[0]!;
          assert.ok(waits.get(pick)! <= waits.get(other)!);
          const max = Math.max(...waitList);
          if (waitList.filter((w) => w === max).length === 1) assert.notEqual(waits.get(pick), max);
        },
      ),
    );
  });

  it('property: with one task 4× slower and equal queues it loses every comparison, so it gets nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 8 }), fc.integer({ min: 0, max: 2 ** 31 }), (n, seed) => {
        const tasks = Array.from({ length: n }, (_, i) => i + 1);
        const waits = new Map(tasks.map((t) => [t, t === 1 ? 4 : 1]));
        const random = seededRandom(seed);
        let slow = 0;
        const rounds = 2000;
        for (let i = 0; i < rounds; i++) if (pickTwoChoice(tasks, fixedView(waits), random) === 1) slow++;
        // The slowest task wins no comparison: it gets nothing.
        assert.equal(slow, 0);
      }),
      { numRuns: 20 },
    );
  });

  it('a single target is always picked', () => {
    assert.equal(pickTwoChoice([7], fixedView(new Map()), () => 0.5), 7);
  });
});

