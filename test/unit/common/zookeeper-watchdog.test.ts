import assert from 'node:assert/strict';
import { ConnectionWatchdog, type StuckReason } from '../../../common/cluster-state/zookeeper-watchdog.js';
import { ManualClock } from '../../helpers/manual-clock.js';

describe('ConnectionWatchdog', () => {
  const LIMIT = 4000;
  let clock: ManualClock;
  let stuck: [StuckReason, number][];
  let dog: ConnectionWatchdog;
  const make = (connected: boolean): ConnectionWatchdog =>
    new ConnectionWatchdog(LIMIT, (reason, forMs) => {
      stuck.push([reason, forMs]);
      dog.replaced();
    }, clock, connected);

  beforeEach(() => {
    clock = new ManualClock();
    stuck = [];
  });
  afterEach(() => dog.close());

  it('leaves a connected client alone however long it is quiet', async () => {
    dog = make(true);
    await clock.advance(10 * LIMIT);
    assert.equal(stuck.length, 0);
  });

  it('replaces a client that has had no session for the limit, and again each limit while none comes', async () => {
    dog = make(true);
    await clock.advance(1000);
    dog.disconnected();
    await clock.advance(LIMIT - 1000);
    assert.equal(stuck.length, 0, 'not before the limit');
    await clock.advance(1000);
    assert.equal(stuck.length, 1);
    assert.equal(stuck[0]![0], 'no session');
    assert.ok(stuck[0]![1] >= LIMIT && stuck[0]![1] <= LIMIT + LIMIT / 4, `reported within a quarter limit (${stuck[0]![1]} ms)`);
    await clock.advance(LIMIT + LIMIT / 4);
    assert.equal(stuck.length, 2, 'the replacement gets a full limit of its own');
  });

  it('a client that reconnects in time is not replaced', async () => {
    dog = make(false);
    await clock.advance(LIMIT - 1000);
    dog.connected();
    await clock.advance(3 * LIMIT);
    assert.equal(stuck.length, 0);
  });

  it('replaces a connected client whose request went unanswered for the limit', async () => {
    dog = make(true);
    dog.unanswered();
    await clock.advance(LIMIT - 1000);
    assert.equal(stuck.length, 0);
    await clock.advance(2000);
    assert.deepEqual(stuck.map(([r]) => r), ['no answer']);
  });

  it('an answer, however late, clears an unanswered request', async () => {
    dog = make(true);
    dog.unanswered();
    await clock.advance(LIMIT - 1000);
    dog.answered();
    await clock.advance(3 * LIMIT);
    assert.equal(stuck.length, 0);
  });

  it('a request that times out while there is no session counts as no session, not twice', async () => {
    dog = make(true);
    dog.disconnected();
    dog.unanswered();
    await clock.advance(LIMIT + LIMIT / 4);
    assert.deepEqual(stuck.map(([r]) => r), ['no session']);
    dog.connected();
    await clock.advance(3 * LIMIT);
    assert.equal(stuck.length, 1, 'a fresh connection starts clean');
  });

  it('stops looking when closed', async () => {
    dog = make(false);
    dog.close();
    await clock.advance(3 * LIMIT);
    assert.equal(stuck.length, 0);
  });
});
