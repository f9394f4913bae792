/** storm-kafka-client's retry schedule, with its defaults (KafkaSpoutConfig.DEFAULT_RETRY_SERVICE). */
import assert from 'node:assert/strict';
import { mayRetry, retryDelayMs, retryOptionsSchema } from '../../../connectors/common/retry-backoff.js';

describe('connectors: retry back-off', () => {
  const defaults = retryOptionsSchema.parse({});

  it("defaults to Storm's: first retry at once, then 2 ms × 2^(n-1), capped at 10 s, retried for ever", () => {
    assert.deepEqual(defaults, { initialDelayMs: 0, delayPeriodMs: 2, maxDelayMs: 10_000, maxRetries: null });
    assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, defaults)), [0, 4, 8, 16, 32]);
    assert.equal(retryDelayMs(13, defaults), 8192);
    assert.equal(retryDelayMs(14, defaults), 10_000);
    assert.equal(retryDelayMs(1000, defaults), 10_000, 'no overflow past the cap');
    assert.equal(mayRetry(1_000_000, defaults), true);
  });

  it('gives up after maxRetries retries', () => {
    const three = retryOptionsSchema.parse({ maxRetries: 3 });
    assert.deepEqual([1, 2, 3, 4].map((n) => mayRetry(n, three)), [true, true, true, false]);
    assert.equal(mayRetry(1, retryOptionsSchema.parse({ maxRetries: 0 })), false, 'maxRetries 0: never retried');
  });

  it('takes its own initial delay and cap', () => {
    const o = retryOptionsSchema.parse({ initialDelayMs: 50, delayPeriodMs: 100, maxDelayMs: 300 });
    assert.deepEqual([1, 2, 3, 4].map((n) => retryDelayMs(n, o)), [50, 200, 300, 300]);
  });
});
