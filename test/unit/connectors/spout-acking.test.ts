/**
 * SpoutAcking: what a queue spout holds between its broker and hstorm's
 * acking — bounded by max.spout.pending, a message acknowledged to the broker
 * only once its tree completes, failures retried after their back-off, given
 * up on after maxRetries, and never lost or acknowledged twice (a property
 * over random runs).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { retryOptionsSchema } from '../../../connectors/common/retry-backoff.js';
import { SpoutAcking } from '../../../connectors/common/spout-acking.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const retry = (o: object = {}) => retryOptionsSchema.parse(o);

describe('connectors: SpoutAcking', () => {
  it('holds at most maxHeld messages, hands them out in arrival order, and ignores a key it holds already', () => {
    const a = new SpoutAcking<string>(3, retry(), new ManualClock());
    assert.equal(a.room(), 3);
    assert.equal(a.offer('1', 'one'), true);
    assert.equal(a.offer('2', 'two'), true);
    assert.equal(a.offer('1', 'one again'), false, 'a redelivery of a held key');
    assert.equal(a.room(), 1);
    assert.deepEqual(a.next(), { key: '1', msg: 'one', attempt: 0, exhausted: false, reason: null });
    assert.equal(a.next()?.key, '2');
    assert.equal(a.next(), undefined);
    assert.deepEqual(a.counts(), { fresh: 0, emitted: 2, waiting: 0 });
    assert.equal(a.unemitted, 0);
  });

  it('lets a message go only when its tree completes, and only once', () => {
    const a = new SpoutAcking<string>(2, retry(), new ManualClock());
    a.offer('k', 'm');
    assert.equal(a.acked('k'), undefined, 'not emitted yet: nothing to acknowledge');
    a.next();
    assert.equal(a.acked('k'), 'm');
    assert.equal(a.acked('k'), undefined, 'a second ack of the same key');
    assert.equal(a.size, 0);
    assert.equal(a.room(), 2);
  });

  it("retries a failed message after Storm's back-off, before fresh ones", async () => {
    const clock = new ManualClock();
    const a = new SpoutAcking<string>(10, retry(), clock);
    a.offer('a', 'A');
    a.offer('b', 'B');
    a.next();
    assert.equal(a.failed('a'), 'retry');
    assert.deepEqual(a.next(), { key: 'a', msg: 'A', attempt: 1, exhausted: false, reason: null }, 'the first retry is due at once');
    assert.equal(a.failed('a'), 'retry');
    assert.equal(a.next()?.key, 'b', 'the second retry waits 4 ms: the fresh message goes first');
    assert.equal(a.next(), undefined);
    await clock.advance(3);
    assert.equal(a.next(), undefined);
    await clock.advance(1);
    assert.deepEqual(a.next(), { key: 'a', msg: 'A', attempt: 2, exhausted: false, reason: null });
    assert.equal(a.failed('nope'), 'unknown');
  });

  it('gives a message up after maxRetries, and retries a given-up message whose failure-stream tuple fails', async () => {
    const clock = new ManualClock();
    const a = new SpoutAcking<string>(10, retry({ maxRetries: 1, delayPeriodMs: 100 }), clock);
    a.offer('x', 'X');
    a.next();
    assert.equal(a.failed('x'), 'retry');
    a.next();
    assert.equal(a.failed('x'), 'exhausted');
    const e = a.next();
    assert.equal(e?.exhausted, true);
    assert.match(e?.reason ?? '', /failed 2 time\(s\), more than maxRetries \(1\)/);
    assert.equal(a.failed('x'), 'retry', 'the failure-stream tuple failed: never given up on twice');
    assert.equal(a.next(), undefined);
    await clock.advance(400);
    assert.equal(a.next()?.exhausted, true);
    assert.equal(a.acked('x'), 'X');
  });

  it('hands a poison message out given up at once', () => {
    const a = new SpoutAcking<string>(10, retry(), new ManualClock());
    a.offer('p', '{bad', 'body is not JSON');
    assert.deepEqual(a.next(), { key: 'p', msg: '{bad', attempt: 0, exhausted: true, reason: 'body is not JSON' });
  });

  it('forgets what a dead channel held: their trees are ignored, a redelivery is taken again', () => {
    const a = new SpoutAcking<string>(10, retry(), new ManualClock());
    a.offer('1:1', 'm');
    a.offer('1:2', 'n');
    a.next();
    assert.equal(a.forget(), 2);
    assert.equal(a.acked('1:1'), undefined);
    assert.equal(a.failed('1:1'), 'unknown');
    assert.equal(a.next(), undefined, 'nothing left to hand out');
    assert.equal(a.offer('2:1', 'm'), true);
    assert.equal(a.next()?.key, '2:1');
  });

  it('never loses a message nor acknowledges one twice, whatever the order of offers, emits, acks, fails and time', async () => {
    type Op = { kind: 'offer' } | { kind: 'next' } | { kind: 'ack'; pick: number } | { kind: 'fail'; pick: number } | { kind: 'tick'; ms: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constant<Op>({ kind: 'offer' }),
      fc.constant<Op>({ kind: 'next' }),
      fc.nat(50).map<Op>((pick) => ({ kind: 'ack', pick })),
      fc.nat(50).map<Op>((pick) => ({ kind: 'fail', pick })),
      fc.integer({ min: 0, max: 50 }).map<Op>((ms) => ({ kind: 'tick', ms })),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.option(fc.integer({ min: 0, max: 3 })), fc.array(op, { maxLength: 200 }), async (maxHeld, maxRetries, ops) => {
        const clock = new ManualClock();
        const a = new SpoutAcking<number>(maxHeld, retry({ maxRetries }), clock);
        let nextId = 0;
        const acknowledged = new Set<number>();
        const out = new Set<number>(); // emitted, tree not complete
        for (const o of ops) {
          if (o.kind === 'offer') {
            // As a spout does: take from the broker only while there is room.
            if (a.room() > 0) assert.equal(a.offer(String(nextId), nextId++), true);
          } else if (o.kind === 'next') {
            const e = a.next();
            if (e) out.add(e.msg);
          } else if (o.kind === 'tick') {
            await clock.advance(o.ms);
          } else {
            const id = [...out][o.pick % Math.max(1, out.size)];
            if (id === undefined) continue;
            out.delete(id);
            if (o.kind === 'ack') {
              assert.equal(a.acked(String(id)), id);
              assert.ok(!acknowledged.has(id), `message ${id} acknowledged twice`);
              acknowledged.add(id);
            } else {
              assert.notEqual(a.failed(String(id)), 'unknown');
            }
          }
          assert.ok(a.size <= maxHeld, 'held beyond max.spout.pending');
        }
        // Every message offered is acknowledged or still held: none lost.
        for (let id = 0; id < nextId; id++) assert.ok(acknowledged.has(id) || a.has(String(id)), `message ${id} lost`);
        assert.equal(acknowledged.size + a.size, nextId);
        assert.equal(a.unemitted, a.counts().fresh, 'the running count of unemitted messages agrees with a recount');
      }),
      { numRuns: 200 },
    );
  });
});
