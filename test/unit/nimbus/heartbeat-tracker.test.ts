/**
 * Nimbus's worker liveness (nimbus/heartbeat-tracker.ts), judged in memory
 * from supervisors' reports and metrics-record changes: a reported worker is
 * dead one task timeout after its last beat (placed by its age, not by a
 * worker clock); a worker whose supervisor does not report is judged by its
 * record with the record period on top; a ZooKeeper outage or a stalled
 * nimbus kills nobody, and every worker gets a fresh timeout afterwards.
 * Clock injected: every check and report says when it happens.
 */
import assert from 'node:assert/strict';
import type { Assignment } from '../../../common/assignment.js';
import type { WorkerBeatsReport } from '../../../common/worker-beats-report.js';
import { HeartbeatTracker, type CheckOptions } from '../../../nimbus/heartbeat-tracker.js';

const TIMEOUT = 10_000;
const START = 30_000;
const RECORD_PERIOD = 10_000;

const assignment: Assignment = {
  topologyId: 't',
  epoch: 1,
  workers: [{ supervisorId: 's', host: '127.0.0.1', port: 1, executors: [{ component: 'spout', task: 1 }], gpu: null, reason: '' }],
  unassigned: [],
  scheduler: 'even',
  createdAt: 0,
};

const opts: CheckOptions = { skip: () => false, recordPeriodMs: () => RECORD_PERIOD };

function report(ageMs: number, workers = 1): WorkerBeatsReport {
  return {
    type: 'worker-beats',
    version: 1,
    supervisorId: 's',
    workers: workers ? [{ topologyId: 't', port: 1, pid: 42, epoch: 1, ageMs }] : [],
  };
}

function setup() {
  const tracker = new HeartbeatTracker({ taskTimeoutMs: TIMEOUT, startTimeoutMs: START });
  const dead = (now: number) => [...(tracker.check([assignment], opts, now).get('t') ?? [])];
  /** Every second from `from` to `to` (inclusive): `each(t)` (a report, a record), then a check; the last verdict. */
  const walk = (from: number, to: number, each: (t: number) => void = () => undefined) => {
    let last: string[] = [];
    for (let t = from; t <= to; t += 1000) {
      each(t);
      last = dead(t);
    }
    return last;
  };
  return { tracker, dead, walk };
}

describe('nimbus heartbeat tracker: supervisors report', () => {
  it('keeps a reported worker alive and declares it dead one task timeout after its last beat', () => {
    const { tracker, walk, dead } = setup();
    assert.deepEqual(walk(0, 20_000, (t) => tracker.report(report(300), t)), []);
    assert.equal(tracker.liveness('t', { supervisorId: 's', port: 1 }, 20_000), 'alive');
    // The supervisor still reports, without the worker (its local beat went stale): the last beat was at 19 700.
    assert.deepEqual(walk(21_000, 29_000, (t) => tracker.report(report(0, 0), t)), []);
    tracker.report(report(0, 0), 29_701);
    assert.deepEqual(dead(29_701), ['s:1']);
  });

  it('places a beat by its age on its own machine, never by a worker clock', () => {
    const { tracker, walk, dead } = setup();
    assert.deepEqual(walk(0, 8000, (t) => tracker.report(report(0, 0), t)), []);
    // Reported at 9 000 but 8 000 ms old: the beat was at 1 000, so the worker is dead after 11 000.
    tracker.report(report(8000), 9000);
    assert.deepEqual(walk(9000, 11_000, (t) => tracker.report(report(0, 0), t)), []);
    tracker.report(report(0, 0), 11_001);
    assert.deepEqual(dead(11_001), ['s:1']);
  });

  it('gives a worker that never beat the launch timeout', () => {
    const { tracker, walk, dead } = setup();
    assert.deepEqual(walk(0, START, (t) => tracker.report(report(0, 0), t)), []);
    assert.equal(tracker.liveness('t', { supervisorId: 's', port: 1 }, START), 'starting');
    tracker.report(report(0, 0), START + 1);
    assert.deepEqual(dead(START + 1), ['s:1']);
  });

  it('counts a changed metrics record as news too', () => {
    const { tracker, walk, dead } = setup();
    let v = 0;
    // Reports without the worker, but its record changes every second: alive.
    assert.deepEqual(walk(0, 30_000, (t) => {
      tracker.report(report(0, 0), t);
      tracker.noteRecords('t', [{ supervisorId: 's', port: 1, sig: String(v++) }], t);
    }), []);
    assert.deepEqual(walk(31_000, 40_000, (t) => tracker.report(report(0, 0), t)), []);
    tracker.report(report(0, 0), 40_001);
    assert.deepEqual(dead(40_001), ['s:1']);
  });
});

describe('nimbus heartbeat tracker: a supervisor that does not report', () => {
  it('judges its workers by their metrics records, with the record period on top of the timeout', () => {
    const { tracker, walk, dead } = setup();
    let v = 0;
    // A record every 10 s (the default period) and a 10 s timeout: never dead while it keeps coming.
    assert.deepEqual(walk(0, 60_000, (t) => t % RECORD_PERIOD === 0 && tracker.noteRecords('t', [{ supervisorId: 's', port: 1, sig: String(v++) }], t)), []);
    // The last record was seen at 60 000: dead only after 60 000 + timeout + period.
    assert.deepEqual(walk(61_000, 60_000 + TIMEOUT + RECORD_PERIOD), []);
    assert.deepEqual(dead(60_000 + TIMEOUT + RECORD_PERIOD + 1), ['s:1']);
  });

  it('takes a record seen again unchanged as no news', () => {
    const { tracker, walk, dead } = setup();
    const same = (t: number) => tracker.noteRecords('t', [{ supervisorId: 's', port: 1, sig: 'same' }], t);
    assert.deepEqual(dead(0), [], 'the assignment read before any record');
    assert.deepEqual(walk(0, TIMEOUT + RECORD_PERIOD, same), []);
    // First seen at 0, never changed since: dead after 0 + timeout + period.
    same(TIMEOUT + RECORD_PERIOD + 1);
    assert.deepEqual(dead(TIMEOUT + RECORD_PERIOD + 1), ['s:1']);
  });
});

describe('nimbus heartbeat tracker: a supervisor that dies, a slot used again', () => {
  it('takes no worker with a supervisor that stops reporting: they get the record period on top from its last report', () => {
    const { tracker, dead } = setup();
    // Reports every second until 10 000, each saying the worker beat 900 ms earlier; then the supervisor is gone.
    for (let t = 0; t <= 10_000; t += 1000) {
      tracker.report(report(900), t);
      dead(t);
    }
    // Its last news is 9 100: never dead before 9 100 + timeout + period, checked every 100 ms (the moment the
    // supervisor turns silent, 10 000 + timeout, included).
    for (let t = 10_100; t <= 9100 + TIMEOUT + RECORD_PERIOD; t += 100) assert.deepEqual(dead(t), [], `dead at ${t}`);
    assert.deepEqual(dead(9100 + TIMEOUT + RECORD_PERIOD + 1), ['s:1']);
  });

  it('judges a worker assigned again to a slot afresh, not by the news of the earlier worker there', () => {
    const { tracker, walk } = setup();
    assert.deepEqual(walk(0, 5000, (t) => tracker.report(report(0), t)), []);
    // Moved away at 6 000; its supervisor stops it, which takes until 12 000, and reports it meanwhile.
    for (let t = 6000; t <= 12_000; t += 1000) {
      tracker.report(report(0), t);
      assert.equal(tracker.check([], opts, t).size, 0);
    }
    assert.equal(tracker.check([], opts, 13_000).size, 0);
    // Back on the same slot at 14 000: a new worker that has yet to start, judged by the launch timeout, not by
    // the earlier worker's last beat at 12 000.
    assert.deepEqual(walk(14_000, 12_000 + TIMEOUT + 5000, (t) => tracker.report(report(0, 0), t)), []);
    assert.equal(tracker.liveness('t', { supervisorId: 's', port: 1 }, 12_000 + TIMEOUT + 5000), 'starting');
  });
});

describe('nimbus heartbeat tracker: blindness', () => {
  it('judges nobody while blind, and gives every worker a fresh task timeout on regaining sight', () => {
    const { tracker, walk, dead } = setup();
    assert.deepEqual(walk(0, 1000, (t) => tracker.report(report(0), t)), []);
    tracker.blind(1000);
    // The supervisor keeps reporting, without the worker: still no verdict while blind.
    assert.deepEqual(walk(2000, 3 * TIMEOUT, (t) => tracker.report(report(0, 0), t)), []);
    tracker.regainSight(3 * TIMEOUT);
    assert.deepEqual(walk(3 * TIMEOUT + 1000, 4 * TIMEOUT, (t) => tracker.report(report(0, 0), t)), [], 'a fresh grace period from reconnecting');
    tracker.report(report(0, 0), 4 * TIMEOUT + 1);
    assert.deepEqual(dead(4 * TIMEOUT + 1), ['s:1'], 'still silent after the grace period: dead');
  });

  it('gives a fresh task timeout after a gap between checks longer than half the timeout (a stalled nimbus)', () => {
    const { tracker, walk, dead } = setup();
    assert.deepEqual(walk(0, 1000, (t) => tracker.report(report(0), t)), []);
    // Nimbus did not look for 2 × the timeout: the reports of that time may still wait unread in its sockets.
    const back = 1000 + 2 * TIMEOUT;
    assert.deepEqual(walk(back, back + TIMEOUT, (t) => tracker.report(report(0, 0), t)), []);
    tracker.report(report(0, 0), back + TIMEOUT + 1);
    assert.deepEqual(dead(back + TIMEOUT + 1), ['s:1'], 'looked all along and saw nothing: dead');
  });

  it('skips killed topologies and forgets news of workers no longer assigned', () => {
    const { tracker } = setup();
    tracker.report(report(0), 0);
    assert.equal(tracker.check([assignment], { ...opts, skip: () => true }, 50_000).size, 0);
    tracker.check([], opts, 51_000);
    // Forgotten: judged afresh (starting) when assigned again.
    assert.equal(tracker.liveness('t', { supervisorId: 's', port: 1 }, 51_000), 'starting');
  });

  it('holds no more than the cluster, however many supervisors and workers came and went (an hour of churn)', () => {
    const tracker = new HeartbeatTracker({ taskTimeoutMs: TIMEOUT, startTimeoutMs: START });
    // Every 10 s a new supervisor replaces one, its two workers in a new topology; reports also name a topology
    // nobody assigns (a supervisor reporting a killed topology's workers). One check a second, 3 600 of them.
    let most = { workers: 0, supervisors: 0 };
    for (let t = 0; t < 3_600_000; t += 1000) {
      const gen = Math.floor(t / 10_000);
      const live = [gen, gen + 1].map((g) => `s${g}`);
      const assignments: Assignment[] = live.map((sup, i) => ({
        ...assignment,
        topologyId: `t${gen + i}`,
        workers: [1, 2].map((port) => ({ ...assignment.workers[0]!, supervisorId: sup, port })),
      }));
      live.forEach((sup, i) =>
        tracker.report(
          {
            type: 'worker-beats',
            version: 1,
            supervisorId: sup,
            workers: [1, 2].map((port) => ({ topologyId: `t${gen + i}`, port, pid: 42, epoch: 1, ageMs: 0 })).concat([{ topologyId: 'killed', port: 3, pid: 7, epoch: 1, ageMs: 0 }]),
          },
          t,
        ),
      );
      tracker.noteRecords(`t${gen}`, [{ supervisorId: live[0]!, port: 1, sig: `v${t}` }], t);
      tracker.check(assignments, opts, t);
      const s = tracker.sizes();
      most = { workers: Math.max(most.workers, s.workers), supervisors: Math.max(most.supervisors, s.supervisors) };
    }
    // 4 workers assigned (plus what one round of reports adds before the check prunes it); supervisors for 3 task timeouts.
    assert.ok(most.workers <= 6, `workers held at most ${most.workers}`);
    assert.ok(most.supervisors <= 5, `supervisors held at most ${most.supervisors}`);
  });
});
