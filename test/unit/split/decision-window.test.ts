import assert from 'node:assert/strict';
import fc from 'fast-check';
import { closestFraction, decisionWindow } from '../../../topology-sdk/internal/decision-window.js';

const G = true;
const C = false;

describe('decision window', () => {
  it('gives the exact patterns of the paper and the corner cases', () => {
    assert.deepEqual(decisionWindow(0, 20), [C]);
    assert.deepEqual(decisionWindow(0.2, 20), [G, C, C, C, C]);
    assert.deepEqual(decisionWindow(0.5, 20), [G, C]);
    assert.deepEqual(decisionWindow(0.8, 20), [G, G, G, G, C]);
    assert.deepEqual(decisionWindow(1, 20), [G]);
    assert.deepEqual(decisionWindow(1 / 3, 20), [G, C, C]);
    assert.deepEqual(decisionWindow(2 / 3, 20), [G, G, C]);
    assert.deepEqual(decisionWindow(0.6, 20), [G, G, C, G, C]);
  });

  it('picks the smallest window among equally close fractions', () => {
    assert.deepEqual(closestFraction(0.8, 20), { k: 4, n: 5 });
    assert.deepEqual(closestFraction(0.5, 20), { k: 1, n: 2 });
    assert.deepEqual(closestFraction(0.37, 20), { k: 7, n: 19 });
    assert.deepEqual(closestFraction(0.37, 5), { k: 2, n: 5 });
    assert.deepEqual(decisionWindow(0.37, 1), [C]);
    assert.deepEqual(decisionWindow(0.6, 1), [G]);
  });

  it('clamps γ to [0, 1] and rejects what is not a γ or a window', () => {
    assert.deepEqual(decisionWindow(1.5, 20), [G]);
    assert.deepEqual(decisionWindow(-0.1, 20), [C]);
    assert.throws(() => decisionWindow(Number.NaN, 20), RangeError);
    assert.throws(() => decisionWindow(0.5, 0), RangeError);
    assert.throws(() => decisionWindow(0.5, 2.5), RangeError);
  });

  it('is the closest k/n, exact over the window, and spread evenly (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 40 }), (gamma, max) => {
        const w = decisionWindow(gamma, max);
        const k = w.filter(Boolean).length;
        const n = w.length;
        assert.ok(n >= 1 && n <= max);
        for (let m = 1; m <= max; m++) assert.ok(Math.abs(gamma - k / n) <= Math.abs(gamma - Math.round(gamma * m) / m) + 1e-12);
        // Evenness: cyclic runs of the majority kind differ by at most one; the minority never repeats.
        const majority = k * 2 >= n;
        const runs: number[] = [];
        const start = w.indexOf(!majority);
        if (start < 0) return;
        let run = 0;
        for (let i = 1; i <= n; i++) {
          const v = w[(start + i) % n]!;
          if (v === majority) run++;
          else {
            runs.push(run);
            run = 0;
          }
        }
        assert.ok(Math.max(...runs) - Math.min(...runs) <= 1, `uneven ${JSON.stringify(w)}`);
      }),
      { numRuns: 500 },
    );
  });
});
