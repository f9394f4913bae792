import assert from 'node:assert/strict';
import { componentLoadFrom } from '../../../worker/context/component-load.js';
import type { ExecutorMetrics, GpuMetrics, WorkerHeartbeat } from '../../../common/storm-base.js';

const stats = (count: number, mean: number) => ({ count, mean, p50: mean, p99: mean, max: mean });

function executor(component: string, executeMean: number, gpu?: Partial<GpuMetrics>): ExecutorMetrics {
  const m: ExecutorMetrics = {
    component,
    task: 1,
    emitted: 0,
    transferred: 0,
    executed: 10,
    acked: 10,
    failed: 0,
    executeLatencyMs: stats(10, executeMean),
    completeLatencyMs: null,
    queueDepth: 0,
    capacity: 0,
  };
  if (gpu) m.gpu = { backend: 'webasm', backendsRan: ['webasm'], selectedBackend: 'webasm', requestedBackend: 'webasm', fallback: false, fallbackReason: null, device: null, adapter: null, deviceStats: null, launches: 0, failedLaunches: 0, kernelMs: stats(0, 0), inFlightMs: stats(0, 0), busyMs: 0, batchFill: 0, batchSize: 16, tuples: 0, tuplesPerSec: 0, ...gpu };
  return m;
}

function beat(time: number, executors: ExecutorMetrics[]): WorkerHeartbeat {
  return { version: 1, topologyId: 't', supervisorId: 's', host: 'h', port: 1, pid: 1, epoch: 1, time, uptimeSecs: 1, rssMB: 1, droppedFrames: 0, executors };
}

describe('component load (capacity policy input)', () => {
  it('capacity = executors ÷ mean service time, GPU bolts by kernel time per tuple, stale beats ignored', () => {
    const now = 100_000;
    const beats = [
      beat(now, [executor('cpu-bolt', 4), executor('cpu-bolt', 4), executor('gpu-bolt', 0.01, { launches: 10, tuples: 160, kernelMs: stats(10, 8) })]),
      beat(now - 60_000, [executor('cpu-bolt', 1)]),
    ];
    const cpu = componentLoadFrom(beats, 'cpu-bolt', now);
    assert.deepEqual(cpu, { executors: 2, meanServiceMs: 4 });
    const gpu = componentLoadFrom(beats, 'gpu-bolt', now);
    assert.equal(gpu.executors, 1);
    assert.ok(Math.abs(gpu.meanServiceMs! - 0.5) < 1e-12, '8 ms per launch of 16 tuples');
    assert.deepEqual(componentLoadFrom(beats, 'nobody', now), { executors: 0, meanServiceMs: null });
  });
});
