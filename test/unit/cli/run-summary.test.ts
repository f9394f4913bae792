import assert from 'node:assert/strict';
import { formatSummary, summarize } from '../../../cli/run-summary.js';
import type { ExecutorMetrics, WorkerHeartbeat } from '../../../common/storm-base.js';

const none = { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };

function exec(component: string, task: number, over: Partial<ExecutorMetrics> = {}): ExecutorMetrics {
  return { component, task, emitted: 0, transferred: 0, executed: 0, acked: 0, failed: 0, executeLatencyMs: none, completeLatencyMs: null, queueDepth: 0, capacity: 0, ...over };
}

function beat(port: number, executors: ExecutorMetrics[]): WorkerHeartbeat {
  return { version: 1, topologyId: 't-1', supervisorId: 's', host: 'h1', port, pid: 1, epoch: 1, time: 0, uptimeSecs: 1, rssMB: 50, droppedFrames: 0, executors };
}

describe('cli/run-summary', () => {
  it("counts a spout whose every tuple failed in the headline, like the component table (it never tracked a complete latency)", () => {
    const beats = [beat(6700, [exec('nums', 1, { emitted: 1000, failed: 1000 }), exec('bad', 2, { executed: 1000, failed: 1000 })])];
    const s = summarize('t', beats, 2, new Set(['nums']));
    assert.equal(s.failed, 1000);
    assert.equal(s.components.nums!.failed, 1000);
    assert.match(formatSummary(s), /spout tuples acked 0, failed 1000/);
  });

  it("carries each component's newest error with its task, host and port (Storm's last error)", () => {
    const beats = [
      beat(6700, [exec('bad', 2, { errors: [{ time: 10, error: 'execute threw: TypeError: old' }, { time: 30, error: 'execute threw: TypeError: newest\n    at Bad.execute (x.ts:3:1)' }] })]),
      beat(6701, [exec('bad', 3, { errors: [{ time: 20, error: 'execute threw: TypeError: middle' }] }), exec('ok', 4)]),
    ];
    const s = summarize('t', beats, 2, new Set());
    assert.deepEqual(s.components.bad!.lastError, { error: 'execute threw: TypeError: newest\n    at Bad.execute (x.ts:3:1)', time: 30, host: 'h1', port: 6700, task: 2 });
    assert.equal(s.components.bad!.errorCount, 3);
    assert.equal(s.components.ok!.lastError, undefined);
    const text = formatSummary(s);
    assert.match(text, /bad \(task 2 on h1:6700, .*\): execute threw: TypeError: newest\n {6}at Bad\.execute \(x\.ts:3:1\)/);
  });
});
