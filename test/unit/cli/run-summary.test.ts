import assert from 'node:assert/strict';
import { failedRun, summarize } from '../../../cli/run-summary.js';
import { WorkerHistory } from '../../../cli/worker-history.js';
import { formatSummary, progressLine } from '../../../cli/run-summary-format.js';
import type { ExecutorMetrics, WorkerHeartbeat } from '../../../common/storm-base.js';
import { MetricRegistry } from '../../../topology-sdk/user-metrics.js';

const none = { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };

function exec(component: string, task: number, over: Partial<ExecutorMetrics> = {}): ExecutorMetrics {
  return { component, task, emitted: 0, transferred: 0, executed: 0, acked: 0, failed: 0, executeLatencyMs: none, completeLatencyMs: null, queueDepth: 0, capacity: 0, ...over };
}

function beat(port: number, executors: ExecutorMetrics[]): WorkerHeartbeat {
  return { version: 1, topologyId: 't-1', supervisorId: 's', host: 'h1', port, pid: 1, epoch: 1, time: 0, uptimeSecs: 1, rssMB: 50, droppedFrames: 0, executors };
}

/** A task's user metrics of every kind, as MetricRegistry reports them. */
function userMetrics(counter: number, gauge: number): ExecutorMetrics['user'] {
  const reg = new MetricRegistry();
  reg.counter('lines').inc(counter);
  reg.gauge('backlog', () => gauge);
  const h = reg.histogram('size');
  for (const v of [1, 2, 3, 100]) h.update(v);
  reg.meter('bytes').mark(10);
  return reg.snapshot();
}

describe('cli/run-summary', () => {
  it('after a crash, counts every incarnation of every worker; names the crash; system spouts apart from the headline', () => {
    const h = new WorkerHistory();
    const at = (pid: number, time: number, port: number, executors: ExecutorMetrics[]) => ({ ...beat(port, executors), pid, time });
    // Worker 6700 (the spout) acks 1 200, then is killed; its next process acks 800 more. Worker 6701 runs on.
    h.observe([at(11, 1, 6700, [exec('spout', 1, { emitted: 1200, acked: 1200 }), exec('__checkpointspout', 9, { emitted: 40, acked: 40, completeLatencyMs: none })]), at(12, 1, 6701, [exec('count', 2, { executed: 1200, acked: 1200 })])]);
    h.observe([at(21, 5, 6700, [exec('spout', 1, { emitted: 100, acked: 100 })]), at(12, 5, 6701, [exec('count', 2, { executed: 1300, acked: 1300 })])]);
    h.observe([at(21, 9, 6700, [exec('spout', 1, { emitted: 800, acked: 800 }), exec('__checkpointspout', 9, { emitted: 10, acked: 9, failed: 1, completeLatencyMs: none })]), at(12, 9, 6701, [exec('count', 2, { executed: 2000, acked: 2000 })])]);
    assert.equal(h.departed().length, 1, 'the killed process, as last seen');
    const s = summarize('t', h.running(), 10, new Set(['spout', '__checkpointspout']), ['spout', 'count', '__checkpointspout'], h.departed());
    assert.deepEqual([s.spoutEmitted, s.acked, s.failed], [2000, 2000, 0], 'both processes of the spout, without the checkpoint spout');
    assert.deepEqual(s.system, { __checkpointspout: { emitted: 50, acked: 49, failed: 1 } });
    assert.deepEqual([s.components.spout!.acked, s.components.spout!.executors, s.components.count!.acked], [2000, 1, 2000]);
    assert.deepEqual([s.workers, s.incarnations], [2, 3]);
    s.crashes = [{ host: 'h1', port: 6700, components: ['spout', '__checkpointspout'], deaths: 1, lastExit: { code: null, signal: 'SIGKILL' }, lastError: null }];
    const text = formatSummary(s);
    assert.match(text, /^topology t: 2 workers \(3 worker processes: the counts include the ones that died\)/);
    assert.match(text, /\n {2}spout tuples acked 2000, failed 0/);
    assert.match(text, /\n {2}system spout __checkpointspout \(not in the counts above\): emitted 50, acked 49, failed 1/);
    assert.match(text, /\n {2}worker h1:6700 \(spout, __checkpointspout\) crashed once, last killed by SIGKILL, and was restarted/);
    assert.ok(failedRun(s), 'a crash is a run to look at');
  });

  it('shows user metrics of every kind, folded over the tasks (JSON and text)', () => {
    const s = summarize('t', [beat(6700, [exec('read', 1, { user: userMetrics(3, 5) }), exec('read', 2, { user: userMetrics(4, 9) })])], 1);
    const m = s.components.read!.userMetrics!;
    assert.deepEqual(m.counters, { lines: 7 });
    assert.deepEqual(s.components.read!.counters, { lines: 7 });
    assert.equal(m.gauges.backlog!.min, 5);
    assert.equal(m.gauges.backlog!.max, 9);
    assert.equal(m.histograms.size!.count, 8);
    assert.equal(m.meters.bytes!.count, 20);
    const text = formatSummary(s);
    assert.match(text, /counters: lines 7\n {4}gauges: backlog 5\.\.9 \(mean 7\)\n {4}histograms: size count 8 p50 [\d.]+ p99 [\d.]+ max 100\n {4}meters: bytes count 20/);
  });

  it('sums tick tuples per component, apart from executed', () => {
    const s = summarize('t', [beat(6700, [exec('rolling', 1, { executed: 10, ticks: 3 }), exec('rolling', 2, { executed: 5, ticks: 4 }), exec('sink', 3, { executed: 2 })])], 1);
    assert.equal(s.components.rolling!.ticks, 7);
    assert.equal(s.components.rolling!.executed, 15);
    assert.equal(s.components.sink!.ticks, undefined);
    assert.match(formatSummary(s), /rolling .*\n {4}tick tuples: 7 \(not in executed\/acked\)/);
  });

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

  it('prints the split of a hybrid spout (γ, δ, latencies, sent per side), and a progress line of spout tuples only', () => {
    const split = (controller: boolean, sentCpu: number, sentGpu: number) => ({
      gamma: 0.8,
      delta: 0.79,
      latCpuMs: 12,
      latGpuMs: 3,
      policy: 'latency' as const,
      theta: 0.9,
      sentCpu,
      sentGpu,
      controller,
      windows: controller ? 14 : 0,
      applied: [],
    });
    const beats = [
      beat(6700, [exec('reader', 1, { emitted: 600, acked: 590, split: split(true, 100, 400) }), exec('reader', 2, { emitted: 400, acked: 400, split: split(false, 80, 320) })]),
      beat(6701, [exec('cpu-dealer', 3, { executed: 180, emitted: 180 }), exec('gpu-dealer', 4, { executed: 720, emitted: 720 })]),
    ];
    const s = summarize('t', beats, 2, new Set(['reader']));
    assert.equal(s.spoutEmitted, 1000);
    assert.equal(s.emitted, 1900);
    assert.match(formatSummary(s), /\n {4}split: γ=0\.800 after 14 windows, δ=0\.790, latency CPU 12\.00 ms \/ GPU 3\.00 ms; sent CPU 180, GPU 720 \(80\.0 % to GPU\)/);
    const line = progressLine(s, 5);
    assert.match(line, /spout tuples emitted 1000 acked 990 failed 0/);
    assert.match(line, /γ=0\.800/);
    assert.doesNotMatch(line, /1900/);
  });

  it('says when a side of the split had no running task, and why', () => {
    const sides = {
      cpu: { components: ['cpu-dealer'], running: 2, downSince: null, reason: null },
      gpu: { components: ['gpu-dealer'], running: 0, downSince: 1, reason: 'no running task of gpu-dealer: no GPU slot' },
    };
    const split = { gamma: 0, delta: null, latCpuMs: null, latGpuMs: null, policy: 'latency' as const, theta: 0.9, sentCpu: 10, sentGpu: 0, controller: true, windows: 4, applied: [], sides };
    const s = summarize('t', [beat(6700, [exec('reader', 1, { emitted: 10, acked: 10, split })])], 2, new Set(['reader']));
    assert.match(formatSummary(s), /\n {4}GPU side: no running task \(no running task of gpu-dealer: no GPU slot\); its share went to the other side/);
    assert.doesNotMatch(formatSummary(s), /CPU side: no running task/);
  });
});
