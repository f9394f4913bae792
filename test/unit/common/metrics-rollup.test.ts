import assert from 'node:assert/strict';
import { gpuSummary, rollup, type ExecutorSample, type GpuSample } from '../../../common/metrics-rollup.js';
import { Histogram } from '../../../common/histogram.js';
import { ExecutorMetricsRecorder } from '../../../worker/executor/executor-metrics.js';
import type { GpuAdapterReport } from '../../../common/webgpu-adapter.js';

const NONE = { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };

function executor(extra: Partial<ExecutorSample> = {}): ExecutorSample {
  return { emitted: 0, transferred: 0, executed: 0, acked: 0, failed: 0, capacity: 0, executeLatencyMs: NONE, completeLatencyMs: null, ...extra };
}

function latency(values: number[]): Pick<GpuSample, 'kernelMs' | 'kernelHist' | 'kernelSum'> {
  const h = new Histogram();
  for (const v of values) h.record(v);
  return { kernelMs: h.stats(), kernelHist: h.toSparse(), kernelSum: h.sum };
}

const LAVAPIPE: GpuAdapterReport = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe', description: '', software: true, identity: 'llvmpipe (the only one)', identityVerified: true };
const H100: GpuAdapterReport = { vendor: 'nvidia', architecture: 'hopper', device: 'NVIDIA H100', description: '', software: false, identity: 'NVIDIA H100 (GPU-1)', identityVerified: true };

describe('metrics rollup of GPU bolts', () => {
  it('reports only what ran, with the adapter; a task that moved to the CPU ran on both', () => {
    const r = rollup([
      executor({ gpu: { backend: null, backendsRan: [] } }),
      executor({ gpu: { backend: 'webasm', backendsRan: ['webgpu', 'webasm'], adapter: H100, fallback: true, fallbackReason: 'device lost 4 times' } }),
    ]);
    const g = gpuSummary(r)!;
    assert.deepEqual(g.backends, ['webgpu', 'webasm']);
    assert.deepEqual(g.ran, ['webgpu (NVIDIA H100)', 'webasm']);
    assert.deepEqual([g.onGpu, g.onHardwareGpu, g.fallback], [true, true, true]);
  });

  it('never counts a software adapter as a hardware GPU', () => {
    const g = gpuSummary(rollup([executor({ gpu: { backend: 'webgpu', backendsRan: ['webgpu'], adapter: LAVAPIPE } })]))!;
    assert.deepEqual(g.ran, ['webgpu (software adapter: llvmpipe)']);
    assert.deepEqual([g.onGpu, g.onHardwareGpu], [true, false]);
    assert.equal(gpuSummary(rollup([executor()])), null, 'no GPU section, no GPU summary');
  });

  it('merges kernel time across tasks from histograms, sums launches and takes the worst device trouble', () => {
    const stats = (lost: number, errors: number) => ({ devices: 1 + lost, lost, lastLost: null, errors, lastError: null });
    const g = gpuSummary(
      rollup([
        executor({ gpu: { backend: 'webgpu', launches: 3, failedLaunches: 1, deviceStats: stats(2, 0), ...latency([1, 1, 1]) } }),
        executor({ gpu: { backend: 'webgpu', launches: 2, failedLaunches: 0, deviceStats: stats(2, 5), ...latency([100, 100]) } }),
      ]),
    )!;
    assert.deepEqual([g.launches, g.failedLaunches, g.devicesLost, g.deviceErrors], [5, 1, 2, 5]);
    assert.equal(g.kernelMs.count, 5);
    assert.ok(g.kernelMs.p50 < 1.1 && g.kernelMs.p99 > 95, `merged percentiles: ${JSON.stringify(g.kernelMs)}`);
  });

  it('capacity over an executor life is busy / uptime, the busiest executor', () => {
    const r = rollup([executor({ busyMs: 250, uptimeMs: 1000 }), executor({ busyMs: 900, uptimeMs: 1000 })]);
    assert.equal(r.capacityOverLife, 0.9);
    assert.equal(rollup([executor()]).capacityOverLife, null);
  });
});

describe('executor capacity with off-thread busy time (GPU kernels)', () => {
  it('takes the larger of the execute share and the kernel share, capped at 1', () => {
    const m = new ExecutorMetricsRecorder('dealer', 1);
    let kernelBusy = 0;
    m.countOffThreadBusy(() => kernelBusy);
    m.rollCapacity();
    kernelBusy = 1e9; // far more than any real period: the kernel was busy throughout
    assert.equal(m.rollCapacity(), 1);
    assert.equal(m.rollCapacity(), 0, 'no kernel time in this period, and no execute');
    assert.equal(m.snapshot(0, 0).busyMs, 1e9);
  });
});
