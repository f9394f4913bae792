import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Histogram, WIRE_BUCKETS } from '../../../common/histogram.js';

/** Bucket width: a reported percentile is within this factor of the exact one. */
const ACCURACY = 0.04;

function exactQuantile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

function assertClose(actual: number, expected: number, what: string): void {
  assert.ok(
    actual >= expected * (1 - 1e-9) && actual <= expected * (1 + ACCURACY) + 1e-9,
    `${what}: ${actual} is not within ${ACCURACY * 100} % above ${expected}`,
  );
}

describe('common/histogram', () => {
  it('is empty at first', () => {
    const h = new Histogram();
    assert.equal(h.quantile(0.5), 0);
    assert.deepEqual(h.stats(), { count: 0, mean: 0, p50: 0, p99: 0, max: 0 });
    assert.deepEqual(h.toSparse(), []);
  });

  it('reports percentiles within the bucket accuracy (~4 %)', () => {
    const h = new Histogram();
    const values: number[] = [];
    for (let i = 1; i <= 10_000; i++) {
      const v = 0.01 * 1.0007 ** i; // 0.01 ms … ~11 ms, log-spread
      values.push(v);
      h.record(v);
    }
    values.sort((a, b) => a - b);
    for (const q of [0.01, 0.1, 0.5, 0.9, 0.99, 0.999]) assertClose(h.quantile(q), exactQuantile(values, q), `p${q * 100}`);
    assert.equal(h.quantile(1), values.at(-1));
    assert.equal(h.count, 10_000);
    assert.equal(h.max, values.at(-1));
  });

  it('keeps every percentile within the bucket accuracy for any sample (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.002, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 300 }), fc.double({ min: 0, max: 1, noNaN: true }), (xs, q) => {
        const h = new Histogram();
        for (const x of xs) h.record(x);
        const sorted = [...xs].sort((a, b) => a - b);
        assertClose(h.quantile(q), exactQuantile(sorted, q), `q=${q}`);
      }),
      { numRuns: 200 },
    );
  });

  it('computes count, mean, p50, p99 and max', () => {
    const h = new Histogram();
    for (let i = 0; i < 99; i++) h.record(1);
    h.record(100);
    const s = h.stats();
    assert.equal(s.count, 100);
    assert.equal(s.mean, 1.99);
    assertClose(s.p50, 1, 'p50');
    assertClose(s.p99, 1, 'p99');
    assert.equal(s.max, 100);
    assert.equal(h.quantile(1), 100);
  });

  it('resolves microseconds: 2 µs and 5 µs executes read as such, not as a floor', () => {
    const fast = new Histogram();
    const slower = new Histogram();
    for (let i = 0; i < 100; i++) {
      fast.record(0.002);
      slower.record(0.005);
    }
    assertClose(fast.stats().p50, 0.002, 'p50 of 2 µs');
    assertClose(slower.stats().p50, 0.005, 'p50 of 5 µs');
    assert.equal(fast.stats().mean, 0.002);
  });

  it('puts zero and sub-0.1-µs values in the lowest bucket and keeps huge ones', () => {
    const h = new Histogram();
    h.record(0);
    h.record(0.00000001);
    h.record(10_000_000); // beyond the last bucket (~1 h): clamped into it
    assert.equal(h.count, 3);
    assert.ok(h.quantile(0.5) <= 0.000105);
    assert.ok(h.quantile(1) >= 3_600_000 && h.quantile(1) <= 10_000_000);
    assert.equal(h.max, 10_000_000);
    assert.equal(h.toSparse().length, 2);
  });

  it('merges sparse histograms: the merge answers as one histogram of all samples', () => {
    const parts = [new Histogram(), new Histogram(), new Histogram()];
    const all = new Histogram();
    const values: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const v = ((i * 7919) % 1000) / 10 + 0.05;
      values.push(v);
      parts[i % 3]!.record(v);
      all.record(v);
    }
    const merged = new Histogram();
    for (const p of parts) merged.mergeSparse(p.toSparse(), p.sum, p.max);
    assert.deepEqual(merged.toSparse(), all.toSparse());
    assert.equal(merged.count, all.count);
    assert.ok(Math.abs(merged.sum - all.sum) < 1e-6);
    assert.equal(merged.max, all.max);
    assert.deepEqual(merged.stats(), all.stats());
    values.sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99]) assertClose(merged.quantile(q), exactQuantile(values, q), `merged p${q * 100}`);
  });

  it('merges a sparse histogram that travelled as JSON, and ignores out-of-range buckets', () => {
    const a = new Histogram();
    for (const v of [1, 2, 3, 400]) a.record(v);
    const wire = JSON.parse(JSON.stringify(a.toSparse())) as [number, number][];
    const b = new Histogram();
    b.record(5);
    b.mergeSparse([...wire, [-1, 10], [1e9, 10]], a.sum, a.max);
    assert.equal(b.count, 5);
    assert.equal(b.max, 400);
    assert.equal(b.sum, 411);
    assert.equal(b.quantile(1), 400);
  });

  it('merges into an empty histogram, and resets', () => {
    const a = new Histogram();
    a.record(2);
    const b = new Histogram();
    b.mergeSparse(a.toSparse(), a.sum, a.max);
    b.mergeSparse([], 0, 0);
    assert.deepEqual(b.stats(), a.stats());
    b.reset();
    assert.deepEqual(b.stats(), { count: 0, mean: 0, p50: 0, p99: 0, max: 0 });
  });

  it('travels whole while it fills at most WIRE_BUCKETS buckets', () => {
    const h = new Histogram();
    for (let i = 0; i < 1000; i++) h.record(1 + (i % 20) * 0.05);
    assert.ok(h.toSparse().length <= WIRE_BUCKETS);
    assert.deepEqual(h.toWire(), h.toSparse());
  });

  it('travels bounded, with the quantiles operators read in exactly the bucket the whole gives, and the rest never below (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.0005, max: 600_000, noNaN: true }), { minLength: 40, maxLength: 2000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (xs, q) => {
          const whole = new Histogram();
          for (const x of xs) whole.record(x);
          const wire = whole.toWire();
          assert.ok(wire.length <= WIRE_BUCKETS, `${wire.length} entries`);
          const read = new Histogram();
          read.mergeSparse(wire, whole.sum, whole.max);
          assert.equal(read.count, whole.count);
          for (const r of [0.5, 0.9, 0.95, 0.99, 0.999]) assert.equal(read.quantile(r), whole.quantile(r), `p${r * 100}`);
          assert.ok(read.quantile(q) >= whole.quantile(q), `q=${q}: ${read.quantile(q)} below ${whole.quantile(q)}`);
          assert.equal(read.quantile(1), whole.max);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('is as large on the wire after an hour as after a minute', () => {
    // A busy executor: a minute and then an hour of executes spread over five decades, with rare outliers.
    const h = new Histogram();
    const lengths: number[] = [];
    let seed = 1;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (const minutes of [1, 60]) {
      while (h.count < minutes * 60_000) h.record(0.002 * 10 ** (5 * rnd() ** 3));
      lengths.push(JSON.stringify(h.toWire()).length);
      assert.ok(h.toSparse().length > WIRE_BUCKETS, 'wider than the wire form');
    }
    assert.ok(h.toWire().length <= WIRE_BUCKETS);
    // Only the counts' digits may grow: two more digits per entry at most.
    assert.ok(lengths[1]! <= lengths[0]! + 2 * WIRE_BUCKETS, `${lengths.join(' → ')} bytes`);
  });
});
