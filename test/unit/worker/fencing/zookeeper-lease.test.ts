/**
 * When a worker cut off from ZooKeeper pauses its spouts, and what resumes
 * them (worker/fencing/zookeeper-lease.ts), on a manual clock.
 */
import assert from 'node:assert/strict';
import { ZooKeeperLease } from '../../../../worker/fencing/zookeeper-lease.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const TIMEOUT = 10_000;

describe('ZooKeeperLease', () => {
  it('pauses once, only after more than the task timeout without a ZooKeeper answer', async () => {
    const clock = new ManualClock();
    const lease = new ZooKeeperLease(TIMEOUT, () => clock.now());
    await clock.advance(TIMEOUT);
    assert.equal(lease.check(), null, 'at the timeout exactly');
    await clock.advance(1);
    assert.equal(lease.check(), 'pause');
    assert.equal(lease.paused, true);
    assert.equal(lease.check(), null, 'paused once');
  });

  it('is renewed by every contact: a worker that keeps reaching ZooKeeper never pauses', async () => {
    const clock = new ManualClock();
    const lease = new ZooKeeperLease(TIMEOUT, () => clock.now());
    for (let i = 0; i < 20; i++) {
      await clock.advance(TIMEOUT / 2);
      lease.contact();
      assert.equal(lease.check(), null);
    }
    assert.equal(lease.paused, false);
  });

  it('resumes only when the worker sees itself in its assignment again, not on a renewed heartbeat', async () => {
    const clock = new ManualClock();
    const lease = new ZooKeeperLease(TIMEOUT, () => clock.now());
    await clock.advance(TIMEOUT + 1);
    assert.equal(lease.check(), 'pause');
    lease.contact();
    assert.equal(lease.check(), null);
    assert.equal(lease.paused, true, 'a heartbeat written does not say nimbus kept the slot');
    assert.equal(lease.sawAssignment(false), null, 'an assignment without this worker: it retires, never resumes');
    assert.equal(lease.paused, true);
    assert.equal(lease.sawAssignment(true), 'resume');
    assert.equal(lease.paused, false);
    assert.equal(lease.sawAssignment(true), null, 'resumed once');
  });

  it('counts an assignment read as contact, and a later silence pauses again', async () => {
    const clock = new ManualClock();
    const lease = new ZooKeeperLease(TIMEOUT, () => clock.now());
    await clock.advance(TIMEOUT + 1);
    lease.check();
    lease.sawAssignment(true);
    await clock.advance(TIMEOUT);
    assert.equal(lease.check(), null);
    await clock.advance(1);
    assert.equal(lease.check(), 'pause');
  });
});
