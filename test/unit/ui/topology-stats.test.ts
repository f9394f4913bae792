import assert from 'node:assert/strict';
import type { Assignment } from '../../../common/assignment.js';
import type { ParsedWorkerHeartbeat } from '../../../common/record-schemas.js';
import { prettyUptime, parseWindow, windowPretty } from '../../../ui/storm-ui/format.js';
import { foldUserMetrics } from '../../../common/user-metrics-fold.js';
import { StatsHistory } from '../../../ui/stats/topology-stats.js';
import { WindowedSums } from '../../../ui/stats/windowed-sums.js';
import { MetricRegistry } from '../../../topology-sdk/user-metrics.js';

const MIN = 60_000;

function beat(o: { pid?: number; port?: number; uptimeSecs: number; emitted: number; acked?: number; task?: number; component?: string; completeN?: number; completeSum?: number }): ParsedWorkerHeartbeat {
  const lat = { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };
  return {
    version: 1,
    topologyId: 't',
    supervisorId: 's',
    host: 'h',
    port: o.port ?? 6700,
    pid: o.pid ?? 100,
    epoch: 1,
    time: 0,
    uptimeSecs: o.uptimeSecs,
    rssMB: 50,
    droppedFrames: 0,
    executors: [
      {
        component: o.component ?? 'spout',
        task: o.task ?? 1,
        emitted: o.emitted,
        transferred: o.emitted,
        executed: 0,
        acked: o.acked ?? 0,
        failed: 0,
        executeLatencyMs: lat,
        completeLatencyMs: o.completeN ? { ...lat, count: o.completeN, mean: (o.completeSum ?? 0) / o.completeN } : null,
        completeSum: o.completeSum ?? 0,
        queueDepth: 0,
        capacity: 0,
      },
    ],
  };
}

function assignment(port = 6700): Assignment {
  return { topologyId: 't', epoch: 1, workers: [{ supervisorId: 's', host: 'h', port, gpu: null, executors: [{ component: 'spout', task: 1 }], reason: '' }], unassigned: [], scheduler: 'even', createdAt: 0 };
}

describe('nimbus: windowed statistics (Storm UI windows)', () => {
  it('WindowedSums keeps 20 buckets: a 10-minute window drops what is older', () => {
    const w = new WindowedSums(10 * MIN, 1);
    w.add(0, [5]);
    w.add(5 * MIN, [7]);
    assert.deepEqual([...w.sum(9 * MIN)], [12]);
    assert.deepEqual([...w.sum(10 * MIN + 30_000)], [7], 'the first bucket left the window');
    w.add(16 * MIN, [1]);
    assert.deepEqual([...w.sum(16 * MIN)], [1]);
    w.add(1 * MIN, [100]); // older than the window: dropped
    assert.deepEqual([...w.sum(16 * MIN)], [1]);
  });

  it('counts deltas of one worker incarnation into every window, and all-time', () => {
    const s = new StatsHistory({ startedAt: 0 });
    const a = assignment();
    s.record('t', a, [beat({ uptimeSecs: 1, emitted: 10, acked: 8, completeN: 8, completeSum: 40 })], 1000);
    s.record('t', a, [beat({ uptimeSecs: 20 * 60, emitted: 110, acked: 100, completeN: 100, completeSum: 1000 })], 20 * MIN);
    const ten = s.task('t', 1, '600', 20 * MIN)!;
    assert.equal(ten.emitted, 100, 'only the delta of the last 10 minutes');
    assert.equal(ten.acked, 92);
    assert.equal(ten.completeLatencyMs, Math.round(((1000 - 40) / 92) * 1000) / 1000);
    assert.equal(ten.observedMs, 10 * MIN);
    assert.equal(s.task('t', 1, '10800', 20 * MIN)!.emitted, 110, 'a worker started after nimbus: its first counts are windowed');
    assert.equal(s.task('t', 1, ':all-time', 20 * MIN)!.emitted, 110);
  });

  it('does not window what a worker counted before nimbus started, and keeps it in all-time', () => {
    const s = new StatsHistory({ startedAt: 100 * MIN });
    const a = assignment();
    // The worker has run for an hour; nimbus just started.
    s.record('t', a, [beat({ uptimeSecs: 3600, emitted: 5000 })], 100 * MIN + 1000);
    s.record('t', a, [beat({ uptimeSecs: 3602, emitted: 5020 })], 100 * MIN + 3000);
    assert.equal(s.task('t', 1, '600', 100 * MIN + 3000)!.emitted, 20);
    assert.equal(s.task('t', 1, '600', 100 * MIN + 3000)!.observedMs, 2000, 'nimbus has observed 2 s of the window');
    assert.equal(s.task('t', 1, ':all-time', 100 * MIN + 3000)!.emitted, 5020);
  });

  it('a restarted worker retires its predecessor’s counts; a moved task’s old beat is ignored', () => {
    const s = new StatsHistory({ startedAt: 0 });
    s.record('t', assignment(), [beat({ uptimeSecs: 10, emitted: 50 })], 10_000);
    // Restart: new pid, counters from zero.
    s.record('t', assignment(), [beat({ pid: 200, uptimeSecs: 1, emitted: 5 })], 20_000);
    assert.equal(s.task('t', 1, ':all-time', 20_000)!.emitted, 55);
    assert.equal(s.task('t', 1, '600', 20_000)!.emitted, 55);
    // The task moved to port 6701; the old worker's last beat still lists it.
    s.record('t', assignment(6701), [beat({ pid: 200, uptimeSecs: 2, emitted: 9 }), beat({ pid: 300, port: 6701, uptimeSecs: 1, emitted: 3 })], 30_000);
    assert.equal(s.task('t', 1, ':all-time', 30_000)!.emitted, 58, '50 + 5 retired, 3 from the new place');
    assert.equal(s.places('t').get(1)?.port, 6701);
    s.retain(new Set());
    assert.equal(s.task('t', 1, ':all-time', 30_000), null);
  });

  it('starts a task id over when another component holds it after a rebalance -e, instead of carrying the counts over', () => {
    const s = new StatsHistory({ startedAt: 0 });
    s.record('t', assignment(), [beat({ uptimeSecs: 10, emitted: 80_041 })], 10_000);
    // Renumbered: task 1 is now a new gpu-dealer in a new worker, 7 s old.
    const renumbered: Assignment = { ...assignment(), workers: [{ ...assignment().workers[0]!, executors: [{ component: 'gpu-dealer', task: 1 }] }] };
    s.record('t', renumbered, [beat({ pid: 200, uptimeSecs: 7, emitted: 1440, component: 'gpu-dealer' })], 20_000);
    assert.equal(s.task('t', 1, ':all-time', 20_000)!.emitted, 1440, "the old component's 80 041 are not the new one's");
    assert.equal(s.places('t').get(1)?.component, 'gpu-dealer');
  });

  it('merges complete-latency histograms of retired and current incarnations', () => {
    const s = new StatsHistory({ startedAt: 0 });
    const b1 = beat({ uptimeSecs: 1, emitted: 1, completeN: 2, completeSum: 10 });
    b1.executors[0]!.completeHist = [[100, 2]];
    s.record('t', assignment(), [b1], 1000);
    const b2 = beat({ pid: 7, uptimeSecs: 1, emitted: 1, completeN: 1, completeSum: 5 });
    b2.executors[0]!.completeHist = [[100, 1]];
    s.record('t', assignment(), [b2], 2000);
    assert.equal(s.completeHistogram('t', [1]).count, 3);
  });

  it('writes windows and uptimes as Storm does, and refuses other windows', () => {
    assert.deepEqual(['600', '10800', '86400', ':all-time'].map((w) => windowPretty(parseWindow(w))), ['10m 0s', '3h 0m 0s', '1d 0h 0m 0s', 'All time']);
    assert.equal(parseWindow(undefined), ':all-time');
    assert.throws(() => parseWindow('60'), /window must be one of 600, 10800, 86400, :all-time/);
    assert.equal(prettyUptime(45), '45s');
    assert.equal(prettyUptime(1759), '29m 19s');
    assert.equal(prettyUptime(90_061), '1d 1h 1m 1s');
  });

  it('folds user metrics per component: counters and meters summed, gauges per task, histograms merged', () => {
    const a = new MetricRegistry();
    const b = new MetricRegistry();
    a.counter('n').inc(2);
    b.counter('n').inc(3);
    a.gauge('q', () => 1);
    b.gauge('q', () => 5);
    a.histogram('h').update(10);
    b.histogram('h').update(20);
    const f = foldUserMetrics([
      { task: 1, user: a.snapshot() },
      { task: 2, user: b.snapshot() },
      { task: 3, user: undefined },
    ])!;
    assert.equal(f.counters.n, 5);
    assert.deepEqual(f.gauges.q, { min: 1, max: 5, mean: 3, byTask: { 1: 1, 2: 5 } });
    assert.equal(f.histograms.h!.count, 2);
    assert.equal(f.histograms.h!.max, 20);
    assert.equal(foldUserMetrics([{ task: 1, user: undefined }]), null);
  });
});
