import assert from 'node:assert/strict';
import { MessageRateLimiter } from '../../../common/message-rate-limiter.js';
import { RateLimitedLog } from '../../../common/logger.js';
import type { Logger } from '../../../common/logger.js';

describe('common/message-rate-limiter', () => {
  it('lets perWindow occurrences of a key through per window and reports the rest when the window rolls over', () => {
    let now = 0;
    const l = new MessageRateLimiter({ perWindow: 2, windowMs: 1000, now: () => now });
    const shown = Array.from({ length: 10 }, () => l.admit('a').show);
    assert.deepEqual(shown, [true, true, false, false, false, false, false, false, false, false]);
    // Another message is not held back by the flood of the first.
    assert.equal(l.admit('b').show, true);
    now = 1000;
    assert.deepEqual(l.admit('a'), { show: true, suppressedBefore: 8 });
    assert.deepEqual(l.admit('b'), { show: true, suppressedBefore: 0 });
  });

  it('drain returns what is still held back and forgets it', () => {
    const l = new MessageRateLimiter({ perWindow: 1, windowMs: 1000, now: () => 0 });
    for (let i = 0; i < 4; i++) l.admit('x');
    l.admit('y');
    assert.deepEqual(l.drain(), [{ key: 'x', suppressed: 3 }]);
    assert.deepEqual(l.drain(), []);
  });

  it('remembers at most maxKeys keys, reporting the counts of the ones it evicts', () => {
    const l = new MessageRateLimiter({ perWindow: 1, windowMs: 1000, now: () => 0, maxKeys: 2 });
    l.admit('a');
    l.admit('a');
    l.admit('b');
    l.admit('c');
    assert.deepEqual(l.drain(), [{ key: 'a', suppressed: 1 }]);
  });
});

describe('common/logger RateLimitedLog', () => {
  function recorder(): { log: Logger; lines: { obj: Record<string, unknown>; msg: string }[] } {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const log = { warn: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as unknown as Logger;
    return { log, lines };
  }

  it('limits each message (with its error) on its own and logs the suppressed count at flush', () => {
    const { log, lines } = recorder();
    const r = new RateLimitedLog(log, 2, 10_000, () => 0);
    for (let i = 0; i < 100; i++) r.warn({ err: new TypeError('boom') }, 'execute threw');
    r.warn({ err: new TypeError('other') }, 'execute threw');
    assert.equal(lines.length, 3);
    r.flush();
    assert.equal(lines.length, 4);
    assert.equal(lines[3]!.obj.suppressed, 98);
    assert.match(lines[3]!.msg, /execute threw \(98 similar messages suppressed\)/);
  });
});
