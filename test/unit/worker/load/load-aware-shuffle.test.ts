import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LoadAwareShuffle } from '../../../../worker/routing/load/load-aware-shuffle.js';
import type { LoadView, RoutingLoad } from '../../../../worker/routing/load/task-load.js';
import { seededRandom } from '../../../../common/seeded-random.js';

function routing(loads: Map<number, number>, clock: { now: number }, refreshMs = 100): RoutingLoad {
  const view: LoadView = { waitMs: () => null, loadFraction: (t) => loads.get(t) ?? null, noteSent: () => undefined };
  return { view, clock: () => clock.now, refreshMs, higherBound: 0.8, lowerBound: 0.2 };
}

function shares(g: LoadAwareShuffle, n: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const t = g.pick();
    out.set(t, (out.get(t) ?? 0) + 1);
  }
  return out;
}

describe('worker/load LoadAwareShuffle (Storm semantics)', () => {
  it('keeps to this worker\'s tasks while they are not loaded beyond the higher bound', () => {
    const clock = { now: 0 };
    const loads = new Map([[1, 0.5], [2, 0.5], [3, 0], [4, 0]]);
    const g = new LoadAwareShuffle([1, 2, 3, 4], [1, 2], routing(loads, clock), seededRandom(1));
    const s = shares(g, 1000);
    assert.deepEqual([...s.keys()].sort(), [1, 2]);
    assert.ok(g.localOnly);
  });

  it('widens to every task above the higher bound, and narrows again only below the lower bound', () => {
    const clock = { now: 0 };
    const loads = new Map([[1, 0.9], [2, 0.9], [3, 0], [4, 0]]);
    const g = new LoadAwareShuffle([1, 2, 3, 4], [1, 2], routing(loads, clock), seededRandom(2));
    g.pick();
    assert.equal(g.localOnly, false);
    const s = shares(g, 2000);
    // weights 11, 11, 101, 101: the idle remote tasks get most
    assert.ok((s.get(3) ?? 0) > 5 * (s.get(1) ?? 0), JSON.stringify([...s]));
    loads.set(1, 0.5).set(2, 0.5);
    clock.now += 100;
    g.pick();
    assert.equal(g.localOnly, false, 'between the bounds: stays wide (hysteresis)');
    loads.set(1, 0.1).set(2, 0.1);
    clock.now += 100;
    g.pick();
    assert.equal(g.localOnly, true);
  });

  it('re-weighs only every refreshMs (injected clock)', () => {
    const clock = { now: 0 };
    const loads = new Map([[1, 0], [2, 1]]);
    const g = new LoadAwareShuffle([1, 2], [], routing(loads, clock, 1000), seededRandom(3));
    g.pick();
    loads.set(1, 1).set(2, 0);
    clock.now += 999;
    const before = shares(g, 1000);
    assert.ok((before.get(1) ?? 0) > (before.get(2) ?? 0) * 5, 'old weights still apply');
    clock.now += 1;
    const after = shares(g, 1000);
    assert.ok((after.get(2) ?? 0) > (after.get(1) ?? 0) * 5, 'new weights apply');
  });

  it('property: every task in scope is picked now and then, and a less loaded task never gets a smaller expected share', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 6 }), fc.integer(), (ls, seed) => {
        const tasks = ls.map((_, i) => i + 1);
        const loads = new Map(tasks.map((t, i) => [t, ls[i]!]));
        const g = new LoadAwareShuffle(tasks, [], routing(loads, { now: 0 }), seededRandom(seed));
        const s = shares(g, 20000);
        for (const t of tasks) assert.ok((s.get(t) ?? 0) > 0, `task ${t} (load ${loads.get(t)}) was never picked`);
        const [lo, hi] = [...tasks].sort((a, b) => loads.get(a)! - loads.get(b)!);
        // weights differ by at least 1 in 202 when loads differ by ≥ 0.05: allow sampling noise
        if (loads.get(hi!)! - loads.get(lo!)! >= 0.3) assert.ok((s.get(lo!) ?? 0) > (s.get(hi!) ?? 0));
      }),
      { numRuns: 30 },
    );
  });
});
