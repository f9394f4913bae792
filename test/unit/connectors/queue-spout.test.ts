/**
 * QueueSpout, the base of the queue spouts, over an in-memory queue written
 * for this test (a subclass, as a Kafka spout would be one): messages reach
 * the broker's acknowledgement only through complete trees, nothing is
 * emitted while the broker is down, and a message given up on goes to the
 * failure stream or is dropped, counted and reported.
 */
import assert from 'node:assert/strict';
import type { EmitOptions, SpoutOutputCollector, Values } from '../../../topology-sdk/index.js';
import { QueueSpout, MessageDroppedError, queueSpoutOptionsShape } from '../../../connectors/common/queue-spout.js';
import { parseOptions } from '../../../connectors/common/connector-options.js';
import { z } from 'zod';
import { fakeContext } from '../../helpers/fake-context.js';
import { ManualClock } from '../../helpers/manual-clock.js';

class MemoryQueueSpout extends QueueSpout<string> {
  readonly acknowledged: string[] = [];
  brokerUp = true;
  readonly queue: string[] = [];
  private next = 0;

  constructor(options: object, clock: ManualClock) {
    super('MemoryQueueSpout', parseOptions('MemoryQueueSpout', z.strictObject(queueSpoutOptionsShape), options), clock);
  }

  protected outputFields(): string[] {
    return ['body'];
  }
  protected valuesOf(_key: string, msg: string): Values {
    return [msg];
  }
  protected address(): string {
    return 'memory:0';
  }
  protected prepare(): void {}
  protected connect(): Promise<void> {
    return this.brokerUp ? Promise.resolve() : Promise.reject(new Error('broker down'));
  }
  protected disconnect(): Promise<void> {
    return Promise.resolve();
  }
  protected acknowledge(key: string): void {
    this.acknowledged.push(key);
  }
  protected wantMore(): void {
    while (this.acking.room() > 0 && this.queue.length > 0) this.acking.offer(String(this.next++), this.queue.shift()!);
  }
  breakLink(): void {
    this.link.lost(new Error('connection reset'));
  }
}

interface Emitted {
  values: Values;
  options: EmitOptions | undefined;
}

async function openSpout(options: object, maxPending = 10) {
  const clock = new ManualClock();
  const spout = new MemoryQueueSpout(options, clock);
  const ctx = fakeContext({ component: 'queue' });
  const emitted: Emitted[] = [];
  const errors: unknown[] = [];
  const collector: SpoutOutputCollector = {
    // The spout emits in the options form only.
    emit: (values: unknown, options?: unknown): number[] => (emitted.push({ values: values as Values, options: options as EmitOptions | undefined }), [1]),
    emitDirect: () => undefined,
    reportError: (e) => void errors.push(e),
  };
  await spout.open({ 'topology.max.spout.pending': maxPending } as never, ctx, collector);
  const pump = (n: number) => {
    for (let i = 0; i < n; i++) spout.nextTuple();
  };
  return { spout, ctx, clock, emitted, errors, pump };
}

describe('connectors: QueueSpout', () => {
  it('acknowledges to the broker only when a tree completes, and holds no more than max.spout.pending', async () => {
    const { spout, emitted, pump } = await openSpout({}, 3);
    spout.queue.push('a', 'b', 'c', 'd', 'e');
    pump(10);
    assert.deepEqual(emitted.map((e) => [e.values[0], e.options?.messageId]), [['a', '0'], ['b', '1'], ['c', '2']], 'three held at most');
    assert.deepEqual(spout.acknowledged, []);
    spout.ack('1');
    assert.deepEqual(spout.acknowledged, ['1']);
    pump(10);
    assert.deepEqual(emitted.map((e) => e.values[0]), ['a', 'b', 'c', 'd']);
    spout.fail('0');
    pump(1);
    assert.deepEqual(emitted.at(-1)?.options?.messageId, '0', 'the failed message again, at once (first retry)');
    assert.deepEqual(spout.acknowledged, ['1'], 'a failure acknowledges nothing');
  });

  it('emits nothing while the broker is down and picks up where it was once it is back', async () => {
    const { spout, clock, emitted, errors, pump } = await openSpout({});
    spout.queue.push('a', 'b');
    pump(1);
    spout.brokerUp = false;
    spout.breakLink();
    pump(5);
    assert.equal(emitted.length, 1);
    assert.equal(errors.length, 1);
    assert.match((errors[0] as Error).message, /memory:0 is unreachable \(connection reset\)/);
    await clock.advance(1000);
    assert.equal(emitted.length, 1, 'still down');
    spout.brokerUp = true;
    await clock.advance(5000);
    pump(5);
    assert.deepEqual(emitted.map((e) => e.values[0]), ['a', 'b']);
    assert.equal(errors.length, 1, 'one outage, one report');
  });

  it('drops, counts and reports a message past maxRetries by default', async () => {
    const { spout, ctx, emitted, errors, pump } = await openSpout({ retry: { maxRetries: 1 } });
    spout.queue.push('poison');
    pump(1);
    spout.fail('0');
    pump(1);
    spout.fail('0');
    pump(1);
    assert.equal(emitted.length, 2, 'emitted, retried once, then given up');
    assert.deepEqual(spout.acknowledged, ['0'], 'a dropped message is acknowledged, so the broker does not deliver it for ever');
    assert.equal(ctx.metrics.snapshot().counters['connector.dropped'], 1);
    assert.equal(ctx.metrics.snapshot().counters['connector.retried'], 2);
    assert.ok(errors[0] instanceof MessageDroppedError);
    assert.equal((errors[0] as MessageDroppedError).code, 'HSTORM_ERR_CONNECTOR_DROPPED');
  });

  it('sends a message past maxRetries to the failure stream, tracked, and acknowledges it when that tree completes', async () => {
    const { spout, emitted, pump } = await openSpout({ retry: { maxRetries: 0 }, onMaxRetries: 'failure-stream' });
    spout.queue.push('m');
    pump(1);
    spout.fail('0');
    pump(1);
    assert.deepEqual(emitted[1], { values: ['m', 'failed 1 time(s), more than maxRetries (0)'], options: { stream: 'failed', messageId: '0' } });
    assert.deepEqual(spout.acknowledged, []);
    spout.ack('0');
    assert.deepEqual(spout.acknowledged, ['0']);
  });
});
