import assert from 'node:assert/strict';
import type { ParsedWorkerHeartbeat } from '../../../common/record-schemas.js';
import { SplitHistory } from '../../../nimbus/split-history.js';

function beat(time: number, executors: { task: number; component?: string; split?: Record<string, unknown> }[]): ParsedWorkerHeartbeat {
  const lat = { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };
  return {
    version: 1,
    topologyId: 't-1',
    supervisorId: 's',
    host: '127.0.0.1',
    port: 7000,
    pid: 1,
    epoch: 1,
    time,
    uptimeSecs: 1,
    rssMB: 50,
    droppedFrames: 0,
    executors: executors.map((e) => ({
      component: e.component ?? 'source',
      task: e.task,
      emitted: 0,
      transferred: 0,
      executed: 0,
      acked: 0,
      failed: 0,
      executeLatencyMs: lat,
      completeLatencyMs: null,
      queueDepth: 0,
      capacity: 0,
      ...(e.split && { split: { gamma: 0.5, ...e.split } as { gamma: number } }),
    })),
  };
}

describe('nimbus split history', () => {
  it('records one point per task and heartbeat, in time order, with δ and latencies', () => {
    const h = new SplitHistory(10);
    const b1 = beat(2000, [{ task: 1, split: { gamma: 0.6, delta: 0.8, latCpuMs: 160, latGpuMs: 40 } }, { task: 3, component: 'bolt' }]);
    const b2 = beat(1500, [{ task: 2, split: { gamma: 0.5, delta: null, latCpuMs: null, latGpuMs: null } }]);
    assert.equal(h.record('t-1', [b1, b2]), 2);
    // The same beats again (nimbus sampled faster than workers beat): nothing new.
    assert.equal(h.record('t-1', [b1, b2]), 0);
    assert.equal(h.record('t-1', [beat(1800, [{ task: 2, split: { gamma: 0.55 } }])]), 1);
    assert.deepEqual(h.points('t-1'), [
      { time: 1500, component: 'source', task: 2, gamma: 0.5, delta: null, latCpuMs: null, latGpuMs: null },
      { time: 1800, component: 'source', task: 2, gamma: 0.55, delta: null, latCpuMs: null, latGpuMs: null },
      { time: 2000, component: 'source', task: 1, gamma: 0.6, delta: 0.8, latCpuMs: 160, latGpuMs: 40 },
    ]);
    assert.deepEqual(h.points('t-1', 1800).map((p) => p.time), [2000]);
    assert.deepEqual(h.points('other'), []);
  });

  it('keeps only the newest points and forgets removed topologies', () => {
    const h = new SplitHistory(3);
    for (let i = 1; i <= 5; i++) h.record('t-1', [beat(i * 1000, [{ task: 1, split: { gamma: i / 10 } }])]);
    h.record('t-2', [beat(1000, [{ task: 1, split: {} }])]);
    assert.deepEqual(h.points('t-1').map((p) => p.gamma), [0.3, 0.4, 0.5]);
    h.retain(new Set(['t-1']));
    assert.deepEqual(h.points('t-2'), []);
    assert.equal(h.points('t-1').length, 3);
    assert.throws(() => new SplitHistory(0), RangeError);
  });

  it('takes garbage in the worker-owned fields as null', () => {
    const h = new SplitHistory();
    h.record('t', [beat(1, [{ task: 1, split: { gamma: 0.7, delta: 'x', latCpuMs: Number.NaN, latGpuMs: {} } }])]);
    assert.deepEqual(h.points('t')[0], { time: 1, component: 'source', task: 1, gamma: 0.7, delta: null, latCpuMs: null, latGpuMs: null });
  });
});
