/**
 * Nimbus's worker liveness (nimbus/heartbeat-tracker.ts) across a ZooKeeper
 * outage: heartbeats that could not be written while nimbus could not see
 * kill nobody; after reconnecting every worker has a fresh task timeout, and a
 * worker that still does not beat is then declared dead. Clock injected.
 */
import assert from 'node:assert/strict';
import type { Assignment } from '../../../common/assignment.js';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { HeartbeatTracker } from '../../../nimbus/heartbeat-tracker.js';

const TIMEOUT = 10_000;

const assignment: Assignment = {
  topologyId: 't',
  epoch: 1,
  workers: [{ supervisorId: 's', host: '127.0.0.1', port: 1, executors: [{ component: 'spout', task: 1 }], gpu: null, reason: '' }],
  unassigned: [],
  scheduler: 'even',
  createdAt: 0,
};

/** A tracker on an injected clock; `dead(now)` runs one check that starts and ends at `now`. */
async function setup(clock = { now: 0 }) {
  const state = new InMemoryClusterStore().session();
  await state.create(ZkPaths.workerbeat('t', 's', 1), Buffer.from('{}'), { parents: true });
  const tracker = new HeartbeatTracker(state, { taskTimeoutMs: TIMEOUT, startTimeoutMs: TIMEOUT }, () => clock.now);
  const dead = async (now: number) => {
    clock.now = now;
    return [...((await tracker.check([assignment], () => false, now)).get('t') ?? [])];
  };
  /** Checks every second from `from` to `to` (inclusive), as the monitor does; returns the last verdict. */
  const walk = async (from: number, to: number) => {
    let last: string[] = [];
    for (let t = from; t <= to; t += 1000) last = await dead(t);
    return last;
  };
  return { tracker, dead, walk };
}

describe('nimbus heartbeat tracker', () => {
  it('declares a worker dead when its heartbeat stops changing for the task timeout', async () => {
    const { walk, dead } = await setup();
    assert.deepEqual(await walk(0, TIMEOUT), []);
    assert.deepEqual(await dead(TIMEOUT + 1), ['s:1']);
  });

  it('judges nobody while blind, and gives every worker a fresh task timeout on regaining sight', async () => {
    const { tracker, walk, dead } = await setup();
    assert.deepEqual(await walk(0, 1000), []);
    tracker.blind(1000);
    // ZooKeeper answers again before the session event comes (reads can resume first): still no verdict.
    assert.deepEqual(await walk(2000, 3 * TIMEOUT), []);
    tracker.regainSight(3 * TIMEOUT);
    assert.deepEqual(await walk(3 * TIMEOUT + 1000, 4 * TIMEOUT), [], 'a fresh grace period from reconnecting');
    assert.deepEqual(await dead(4 * TIMEOUT + 1), ['s:1'], 'still silent after the grace period: dead');
  });
});

describe('nimbus heartbeat tracker, blind stretches it notices itself', () => {
  it('gives a fresh task timeout after a gap between checks longer than half the timeout', async () => {
    const { walk, dead } = await setup();
    assert.deepEqual(await walk(0, 1000), []);
    // Nimbus did not look for 2 × the timeout (frozen, or ZooKeeper hung every round): no verdict, fresh grace.
    const back = 1000 + 2 * TIMEOUT;
    assert.deepEqual(await walk(back, back + TIMEOUT), []);
    assert.deepEqual(await dead(back + TIMEOUT + 1), ['s:1'], 'looked all along and saw nothing: dead');
  });

  it('discards the verdict of a check that hung longer than half the timeout', async () => {
    const clock = { now: 0 };
    const state = new InMemoryClusterStore().session();
    await state.create(ZkPaths.workerbeat('t', 's', 1), Buffer.from('{}'), { parents: true });
    // Each stat "takes" 0.6 × the timeout on the injected clock.
    const slow = Object.create(state) as typeof state;
    slow.exists = async (...args: Parameters<typeof state.exists>) => {
      clock.now += 0.6 * TIMEOUT;
      return state.exists(...args);
    };
    const tracker = new HeartbeatTracker(slow, { taskTimeoutMs: TIMEOUT, startTimeoutMs: TIMEOUT }, () => clock.now);
    await tracker.check([assignment], () => false, 0);
    for (let i = 0; i < 3; i++) {
      const start = clock.now + 100;
      clock.now = start;
      assert.deepEqual([...((await tracker.check([assignment], () => false, start)).get('t') ?? [])], [], `hung check ${i}`);
    }
  });
});
