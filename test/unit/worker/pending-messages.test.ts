import assert from 'node:assert/strict';
import { PendingMessages } from '../../../worker/executor/pending-messages.js';

describe('worker/executor/pending-messages', () => {
  it('takes each message once, reuses freed slots without mixing messages up, and grows past its first columns', () => {
    const p = new PendingMessages();
    const n = 5000;
    for (let i = 0; i < n; i++) p.add(BigInt(i) + 1n, { id: i }, i % 2 ? 'odd' : 'default', i);
    assert.equal(p.size, n);
    for (let i = 0; i < n; i += 2) {
      const m = p.take(BigInt(i) + 1n);
      assert.deepEqual(m && { ...m }, { messageId: { id: i }, emittedAt: i, stream: 'default' });
    }
    assert.equal(p.take(1n), null, 'a second take finds nothing');
    for (let i = n; i < n + 1000; i++) p.add(BigInt(i) + 1n, `m${i}`, 's', i); // into the freed slots
    for (let i = 1; i < n; i += 2) assert.deepEqual(p.take(BigInt(i) + 1n)?.messageId, { id: i });
    for (let i = n; i < n + 1000; i++) assert.equal(p.take(BigInt(i) + 1n)?.messageId, `m${i}`);
    assert.equal(p.size, 0);
  });

  it('expires oldest first, up to the first one younger than the deadline', () => {
    const p = new PendingMessages();
    for (let i = 0; i < 10; i++) p.add(BigInt(100 + i), i, 'default', i * 10);
    p.take(102n);
    const expired: unknown[] = [];
    p.expireBefore(45, (id, at) => expired.push([id, at]));
    assert.deepEqual(expired, [
      [0, 0],
      [1, 10],
      [3, 30],
      [4, 40],
    ]);
    assert.equal(p.size, 5);
    assert.equal(p.take(105n)?.messageId, 5);
  });
});
