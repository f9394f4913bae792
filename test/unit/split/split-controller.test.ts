import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LatencyWindow, capacityDelta, latencyDelta, nextGamma, stepGamma } from '../../../topology-sdk/internal/split-controller.js';
import { checkKey } from '../../../common/config/config.js';
import { ConfigError } from '../../../common/errors.js';

describe('split controller math', () => {
  it("γ' = γ + θ(δ − γ) with δ = lat_cpu / (lat_cpu + lat_gpu)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.001, max: 1e4, noNaN: true }),
        fc.double({ min: 0.001, max: 1e4, noNaN: true }),
        (gamma, theta, latCpu, latGpu) => {
          const delta = latCpu / (latCpu + latGpu);
          const expected = gamma + theta * (delta - gamma);
          assert.ok(Math.abs(nextGamma(gamma, theta, latCpu, latGpu) - expected) < 1e-12);
        },
      ),
    );
    assert.equal(nextGamma(0.5, 0.9, 4, 1), 0.5 + 0.9 * (0.8 - 0.5));
    assert.equal(nextGamma(0.5, 0, 4, 1), 0.5);
    assert.equal(nextGamma(0.5, 1, 4, 1), 0.8);
  });

  it('leaves γ unchanged when a side has no samples (or nothing can be learnt)', () => {
    assert.equal(nextGamma(0.7, 0.9, null, 3), 0.7);
    assert.equal(nextGamma(0.7, 0.9, 3, null), 0.7);
    assert.equal(nextGamma(0.7, 0.9, null, null), 0.7);
    assert.equal(nextGamma(0.7, 0.9, 0, 0), 0.7);
    assert.equal(latencyDelta(0, 5), 0);
    assert.equal(stepGamma(0.3, 0.5, null), 0.3);
  });

  it('converges from 0.5 to 0.8 ± 0.05 within 5 windows when lat_cpu = 4 × lat_gpu and θ = 0.9', () => {
    let gamma = 0.5;
    const trace: number[] = [];
    for (let w = 0; w < 5; w++) {
      gamma = nextGamma(gamma, 0.9, 20, 5);
      trace.push(gamma);
    }
    assert.ok(Math.abs(gamma - 0.8) <= 0.05, `γ after 5 windows: ${trace.join(', ')}`);
    // It is there after the first window already: 0.5 + 0.9 × 0.3 = 0.77.
    assert.ok(Math.abs(trace[0]! - 0.77) < 1e-12);
  });

  it('rejects θ outside [0, 1] — in the formula and in config', () => {
    assert.throws(() => nextGamma(0.5, 1.5, 1, 1), RangeError);
    assert.throws(() => nextGamma(0.5, -0.1, 1, 1), RangeError);
    assert.throws(() => nextGamma(0.5, Number.NaN, 1, 1), RangeError);
    for (const bad of [1.5, -0.1, 'fast']) {
      assert.throws(
        () => checkKey('hstorm.split.theta', bad),
        (err: unknown) => err instanceof ConfigError && err.key === 'hstorm.split.theta' && /hstorm\.split\.theta/.test(err.message),
      );
    }
    assert.equal(checkKey('hstorm.split.theta', 0), 0);
    assert.equal(checkKey('hstorm.split.theta', 1), 1);
  });

  it('capacity policy: δ = capacity_gpu / (capacity_cpu + capacity_gpu), capacity = executors ÷ mean time', () => {
    // CPU: 2 executors × 1/4 ms; GPU: 1 executor × 1/0.5 ms → δ = 2 / 2.5.
    assert.ok(Math.abs(capacityDelta({ executors: 2, meanServiceMs: 4 }, { executors: 1, meanServiceMs: 0.5 })! - 0.8) < 1e-12);
    assert.equal(capacityDelta(null, { executors: 1, meanServiceMs: 1 }), null);
    assert.equal(capacityDelta({ executors: 0, meanServiceMs: 1 }, { executors: 1, meanServiceMs: 1 }), null);
  });
});

describe('latency window', () => {
  it('averages per tuple over all tasks, counting each cumulative report once', () => {
    const w = new LatencyWindow();
    w.observe(1, { cpu: { sumMs: 40, count: 10 }, gpu: { sumMs: 10, count: 10 } });
    w.observe(2, { cpu: { sumMs: 8, count: 2 }, gpu: { sumMs: 0, count: 0 } });
    // A newer report of task 1 supersedes the older one: only the difference counts.
    w.observe(1, { cpu: { sumMs: 80, count: 20 }, gpu: { sumMs: 30, count: 20 } });
    let avg = w.close();
    assert.equal(avg.samplesCpu, 22);
    assert.equal(avg.samplesGpu, 20);
    assert.equal(avg.latCpuMs, 88 / 22);
    assert.equal(avg.latGpuMs, 30 / 20);
    // Next window: nothing new from anyone.
    w.observe(1, { cpu: { sumMs: 80, count: 20 }, gpu: { sumMs: 30, count: 20 } });
    avg = w.close();
    assert.equal(avg.latCpuMs, null);
    assert.equal(avg.latGpuMs, null);
    // A task whose totals went down restarted: its totals count from zero.
    w.observe(2, { cpu: { sumMs: 3, count: 1 }, gpu: { sumMs: 1, count: 1 } });
    avg = w.close();
    assert.equal(avg.latCpuMs, 3);
    assert.equal(avg.latGpuMs, 1);
  });
});
