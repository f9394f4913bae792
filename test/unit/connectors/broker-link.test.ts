/**
 * BrokerLink through outages: down at start or lost later, it logs and reports
 * once per outage (address, never credentials), reconnects with doubling
 * back-off up to its cap, and says when the broker is back.
 */
import assert from 'node:assert/strict';
import { BrokerLink, reasonOf } from '../../../connectors/common/broker-link.js';
import { ConnectorUnavailableError } from '../../../connectors/common/connector-errors.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { ManualClock } from '../../helpers/manual-clock.js';

function link(clock: ManualClock, failures: number) {
  const ctx = fakeContext();
  const reported: unknown[] = [];
  const attempts: number[] = [];
  let left = failures;
  const l = new BrokerLink({
    connector: 'TestSpout',
    address: '127.0.0.1:6379',
    connect: () => {
      attempts.push(clock.now());
      return left-- > 0 ? Promise.reject(new Error('connect ECONNREFUSED redis://user:secret@127.0.0.1:6379')) : Promise.resolve();
    },
    disconnect: () => Promise.resolve(),
    log: ctx.log,
    reportError: (e) => reported.push(e),
    reconnect: { initialDelayMs: 100, maxDelayMs: 400 },
    clock,
  });
  return { l, ctx, reported, attempts };
}

describe('connectors: BrokerLink', () => {
  it('opens even when the broker is down, reports the outage once and reconnects with doubling back-off', async () => {
    const clock = new ManualClock(0);
    const { l, ctx, reported, attempts } = link(clock, 4);
    await l.start();
    assert.equal(l.state, 'down');
    await clock.advance(100 + 200 + 400 + 400);
    assert.deepEqual(attempts, [0, 100, 300, 700, 1100], 'back-off 100, 200, 400, then capped at 400');
    assert.equal(l.up, true);
    assert.equal(reported.length, 1, 'one report per outage');
    assert.ok(reported[0] instanceof ConnectorUnavailableError);
    assert.equal((reported[0] as ConnectorUnavailableError).code, 'HSTORM_ERR_CONNECTOR_UNAVAILABLE');
    const warnings = ctx.logged.filter((e) => e.level === 'warn');
    assert.equal(warnings.length, 1, 'logged once per outage');
    assert.match(warnings[0]!.msg ?? '', /127\.0\.0\.1:6379 is unreachable/);
    assert.ok(!JSON.stringify([ctx.logged, (reported[0] as Error).message]).includes('secret'), 'no credentials in logs or errors');
    assert.ok(ctx.logged.some((e) => e.level === 'info' && /reachable again/.test(e.msg ?? '')));
  });

  it('treats the first failure of a live link as an outage, and later ones as the same outage', async () => {
    const clock = new ManualClock(0);
    const { l, reported } = link(clock, 0);
    await l.start();
    assert.equal(l.up, true);
    l.lost(new Error('socket closed'));
    l.lost(new Error('socket closed again'));
    assert.equal(l.state, 'down');
    assert.equal(reported.length, 1);
    assert.equal(l.outages, 1);
    await clock.advance(100);
    assert.equal(l.up, true);
    await l.close();
    assert.equal(l.state, 'closed');
    l.lost(new Error('after close'));
    assert.equal(reported.length, 1, 'a closed link reports nothing');
  });

  it('names the error code of a connect failure that has no message, and hides URL credentials', () => {
    const e = Object.assign(new AggregateError([new Error('connect ECONNREFUSED 127.0.0.1:1')], ''), { code: 'ECONNREFUSED' });
    assert.equal(reasonOf(e), 'connect ECONNREFUSED 127.0.0.1:1');
    assert.equal(reasonOf(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })), 'ECONNRESET: socket hang up');
    assert.equal(reasonOf(new Error('bad amqp://bob:pw@host:5672')), 'bad amqp://***@host:5672');
  });
});
