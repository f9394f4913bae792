import assert from 'node:assert/strict';
import { PendingMessages } from '../../../worker/acking/pending-messages.js';

/** A small root as its halves (low, high). */
const small = (n: number): [number, number] => [n, 0];

describe('worker/acking/pending-messages', () => {
  it('takes each message once, reuses freed slots without mixing messages up, and grows past its first columns', () => {
    const p = new PendingMessages();
    const n = 5000;
    for (let i = 0; i < n; i++) p.add(...small(i + 1), { id: i }, i % 2 ? 'odd' : 'default', i);
    assert.equal(p.size, n);
    for (let i = 0; i < n; i += 2) {
      const m = p.take(...small(i + 1));
      assert.deepEqual(m && { ...m }, { messageId: { id: i }, emittedAt: i, stream: 'default' });
    }
    assert.equal(p.take(...small(1)), null, 'a second take finds nothing');
    for (let i = n; i < n + 1000; i++) p.add(...small(i + 1), `m${i}`, 's', i); // into the freed slots
    for (let i = 1; i < n; i += 2) assert.deepEqual(p.take(...small(i + 1))?.messageId, { id: i });
    for (let i = n; i < n + 1000; i++) assert.equal(p.take(...small(i + 1))?.messageId, `m${i}`);
    assert.equal(p.size, 0);
  });

  it('resetTimeout restarts a message’s timeout, in the columns and in the overflow, and keeps its emit time for the latency', () => {
    const p = new PendingMessages();
    // Small roots share the high half 0: root 1 takes its slot in the columns, the others go to the overflow map.
    p.add(...small(1), 'a', 'default', 0);
    p.add(...small(2), 'b', 'default', 0);
    p.add(...small(3), 'c', 'default', 0);
    p.add(...small(4), 'd', 'default', 0);
    assert.equal(p.resetTimeout(...small(1), 100), true);
    assert.equal(p.resetTimeout(...small(3), 100), true);
    assert.equal(p.resetTimeout(...small(9), 100), false, 'a root not in flight');
    const expired: unknown[] = [];
    p.expireBefore(50, (id, at) => expired.push([id, at]));
    assert.deepEqual(expired.sort(), [
      ['b', 0],
      ['d', 0],
    ]);
    assert.deepEqual({ ...p.take(...small(1))! }, { messageId: 'a', emittedAt: 0, stream: 'default' }, 'its emit time is kept');
    p.expireBefore(100, (id, at) => expired.push([id, at]));
    assert.deepEqual(expired.slice(2), [['c', 0]], 'the reset one expires a timeout after its reset');
  });

  it('expires oldest first, up to the first one younger than the deadline', () => {
    const p = new PendingMessages();
    for (let i = 0; i < 10; i++) p.add(...small(100 + i), i, 'default', i * 10);
    p.take(...small(102));
    const expired: unknown[] = [];
    p.expireBefore(45, (id, at) => expired.push([id, at]));
    assert.deepEqual(expired, [
      [0, 0],
      [1, 10],
      [3, 30],
      [4, 40],
    ]);
    assert.equal(p.size, 5);
    assert.equal(p.take(...small(105))?.messageId, 5);
  });

  it('numbered roots (high half = the spout\'s running number): laps of the columns, a straggler that outlives a lap, expiry oldest first', () => {
    const window = 100;
    const p = new PendingMessages(window); // 1024 slots
    const root = (n: number): [number, number] => [Math.imul(n, 7919) >>> 0, n >>> 0];
    const start = 0xffff_ff00; // the number wraps past 2^32 on the way
    p.add(...root(start), 'straggler', 'default', 0);
    let taken = 0;
    for (let k = 1; k <= 5000; k++) {
      p.add(...root(start + k), k, 'default', k);
      if (k > window) {
        const m = p.take(...root(start + k - window));
        assert.equal(m?.messageId, k - window, `take ${k - window}`);
        taken++;
      }
    }
    assert.equal(p.size, window + 1, 'the window and the straggler, whose slot later numbers passed over');
    assert.equal(p.take(...root(start + 4999 - 1024)), null, 'a number no longer in flight whose slot is in use');
    const expired: unknown[] = [];
    p.expireBefore(5000 - window + 3, (id) => expired.push(id));
    assert.deepEqual(expired, ['straggler', 4901, 4902, 4903]);
    assert.equal(p.take(...root(start + 4904))?.messageId, 4904);
    assert.equal(p.size, window - 4);
    assert.equal(taken, 5000 - window);
  });
});
