import assert from 'node:assert/strict';
import { LoadBoard, type LocalTaskProbe } from '../../../../worker/routing/load/load-board.js';
import { encodeLoadReport, decodeLoadReport, LOAD_STREAM } from '../../../../worker/routing/load/load-message.js';
import { ServiceTimeEstimator } from '../../../../worker/routing/load/service-time.js';

class FakeClock {
  now = 1_000_000;
  read = (): number => this.now;
}

class FakeTask implements LocalTaskProbe {
  queued = 0;
  done = 0;
  busy = 0;
  constructor(readonly capacity = 100) {}
  backlog = (): number => this.queued;
  executed = (): number => this.done;
  busyMs = (): number => this.busy;
  /** `n` tuples of `ms` each finished. */
  run(n: number, ms: number): void {
    this.done += n;
    this.busy += n * ms;
  }
}

describe('worker/load LoadBoard', () => {
  it('reads a local task directly: (queued + 1) × measured service time', () => {
    const clock = new FakeClock();
    const board = new LoadBoard({ clock: clock.read, staleMs: 1000 });
    const t = new FakeTask();
    board.addLocal(5, t);
    assert.equal(board.waitMs(5), 0, 'unmeasured: counts as 0 so it gets tried');
    t.run(40, 2);
    clock.now += 100;
    board.tick();
    t.queued = 9;
    assert.equal(board.waitMs(5), 20);
    assert.equal(board.loadFraction(5), 0.09);
  });

  it('uses a peer\'s published figure and adds what it sent the task since', () => {
    const clock = new FakeClock();
    const peerClock = new FakeClock();
    const peer = new LoadBoard({ clock: peerClock.read, staleMs: 1000 });
    const pt = new FakeTask(50);
    peer.addLocal(7, pt);
    pt.run(32, 4);
    peerClock.now += 100;
    peer.tick();
    pt.queued = 10;
    const wire = encodeLoadReport(peer.report()!);
    assert.equal(wire[2], LOAD_STREAM);

    const board = new LoadBoard({ clock: clock.read, staleMs: 1000 });
    clock.now = peerClock.now + 3; // 3 ms in transit
    assert.ok(board.apply(wire[3]));
    // 10 queued: (10 + 1) × 4
    assert.equal(board.waitMs(7), 44);
    board.noteSent(7);
    board.noteSent(7);
    assert.equal(board.waitMs(7), 52);
    assert.equal(board.loadFraction(7), 12 / 50);
    const s = board.stats();
    assert.equal(s.reportsReceived, 1);
    assert.equal(s.transitMsMax, 3);
    assert.equal(s.ageAtUseMsMax, 3);
  });

  it('does not use a figure older than staleMs, and counts such reads', () => {
    const clock = new FakeClock();
    const board = new LoadBoard({ clock: clock.read, staleMs: 500 });
    assert.equal(board.waitMs(3), null, 'never reported');
    board.apply(encodeLoadReport({ seq: 1, sentAt: clock.now, figures: [{ task: 3, queued: 2, capacity: 10, serviceMs: 1 }] })[3]);
    clock.now += 400;
    assert.notEqual(board.waitMs(3), null);
    clock.now += 101;
    assert.equal(board.waitMs(3), null);
    assert.equal(board.loadFraction(3), null);
    const s = board.stats();
    assert.equal(s.staleReads, 3);
    assert.equal(s.freshReads, 1);
    assert.equal(s.ageAtUseMsMax, 400);
  });

  it('drops a malformed report and counts it; a later good one still applies', () => {
    const clock = new FakeClock();
    const board = new LoadBoard({ clock: clock.read, staleMs: 500 });
    for (const bad of [[], [1, 2], [1, 2, [3, 4, 5]], ['x', 2, []], [1, 2, [3, -1, 10, 1]], [1, 2, [3, 1, 0, 1]]]) assert.equal(board.apply(bad), false);
    assert.equal(board.stats().reportsDropped, 6);
    assert.ok(board.apply([2, clock.now, [3, 0, 10, -1]]));
    assert.equal(board.waitMs(3), 0);
  });

  it('ignores reports about its own tasks (those are read directly)', () => {
    const clock = new FakeClock();
    const board = new LoadBoard({ clock: clock.read, staleMs: 500 });
    const t = new FakeTask();
    board.addLocal(1, t);
    board.apply([1, clock.now, [1, 99, 100, 50]]);
    assert.equal(board.waitMs(1), 0);
  });

  it('a round trip through the report codec keeps every figure', () => {
    const r = { seq: 4, sentAt: 123, figures: [{ task: 1, queued: 3, capacity: 8, serviceMs: null }, { task: 2, queued: 0, capacity: 8, serviceMs: 2.5 }] };
    assert.deepEqual(decodeLoadReport(encodeLoadReport(r)[3]), r);
  });
});

describe('worker/load ServiceTimeEstimator', () => {
  it('averages busy time per execute once a window holds enough executes, and follows a change', () => {
    const e = new ServiceTimeEstimator(0);
    let executed = 0;
    let busy = 0;
    e.update(100, (executed += 4), (busy += 8), 0);
    assert.equal(e.serviceMs, null, 'too few executes yet');
    e.update(200, (executed += 20), (busy += 40), 0);
    assert.equal(e.serviceMs, 2);
    for (let i = 0; i < 20; i++) e.update(300 + 100 * i, (executed += 20), (busy += 160), 0);
    assert.ok(Math.abs(e.serviceMs! - 8) < 0.1, `converged to ${e.serviceMs}`);
  });

  it('sees a stalled task (work waiting, nothing finished) as at least as slow as the stall', () => {
    const e = new ServiceTimeEstimator(0);
    e.update(100, 32, 32, 0);
    assert.equal(e.serviceMs, 1);
    e.update(200, 32, 32, 5);
    assert.equal(e.serviceMs, 1, 'one update with a backlog is not a stall yet');
    e.update(300, 32, 32, 5);
    assert.equal(e.serviceMs, 100);
    e.update(400, 32, 32, 5);
    assert.equal(e.serviceMs, 200);
  });

  it('takes a busy task\'s rate between two updates with work waiting as its service time, after a few tuples', () => {
    const e = new ServiceTimeEstimator(0);
    e.update(100, 1, 0, 3);
    assert.equal(e.serviceMs, null, 'one update with a backlog says nothing yet');
    e.update(200, 5, 0, 3);
    assert.equal(e.serviceMs, 25, '4 tuples in 100 ms while busy throughout');
    e.update(300, 15, 0, 3);
    assert.equal(e.serviceMs, 25 + 0.3 * (10 - 25));
  });

  it('an idle task\'s estimate halves every second, so a task that once looked slow is tried again', () => {
    const e = new ServiceTimeEstimator(0);
    e.update(100, 16, 48, 0);
    assert.equal(e.serviceMs, 3);
    for (let t = 200; t <= 1100; t += 100) e.update(t, 16, 48, 0);
    assert.ok(Math.abs(e.serviceMs! - 1.5) < 1e-9, `halved after 1 s idle: ${e.serviceMs}`);
    // Work again: the window's executes are measured as before (48 ms busy over 16 more executes).
    e.update(1200, 32, 96, 0);
    assert.ok(Math.abs(e.serviceMs! - (1.5 + 0.3 * (3 - 1.5))) < 1e-9, `re-measured: ${e.serviceMs}`);
  });
});
