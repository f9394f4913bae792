import assert from 'node:assert/strict';
import { Meter, MetricRegistrationError, MetricRegistry } from '../../../topology-sdk/user-metrics.js';
import { fakeContext } from '../../helpers/fake-context.js';

describe('sdk: user metrics (metrics v2)', () => {
  it('counters, gauges, histograms and meters report in one snapshot', () => {
    let t = 0;
    const reg = new MetricRegistry(() => t);
    const c = reg.counter('words');
    c.inc();
    c.inc(4);
    c.dec();
    let depth = 7;
    reg.gauge('depth', () => depth);
    reg.gauge('flag', { getValue: () => true });
    reg.gauge('broken', () => {
      throw new Error('no');
    });
    reg.gauge('text', () => 'seven');
    const h = reg.histogram('size');
    for (const v of [1, 2, 3, 4, 100]) h.update(v);
    h.update(Number.NaN);
    const m = reg.meter('events');
    t = 1000;
    m.mark(10);
    depth = 8;
    const s = reg.snapshot();
    assert.deepEqual(s.counters, { words: 4 });
    assert.deepEqual(s.gauges, { depth: 8, flag: 1, broken: null, text: null });
    const size = s.histograms.size!;
    assert.equal(size.count, 5, 'NaN is not recorded');
    assert.equal(size.sum, 110);
    assert.equal(size.max, 100);
    assert.ok(Math.abs(size.p50 - 3) / 3 < 0.05, `p50 ${size.p50}`);
    assert.equal(size.hist.reduce((n, [, k]) => n + k, 0), 5);
    assert.deepEqual(s.meters.events, { count: 10, meanRate: 10, m1Rate: 10 });
  });

  it('the one-minute rate decays with real time between reads', () => {
    let t = 0;
    const m = new Meter(() => t);
    t = 1000;
    m.mark(100);
    assert.equal(m.snapshot().m1Rate, 100);
    t = 61_000; // a minute without events
    const s = m.snapshot();
    assert.ok(s.m1Rate < 100 * Math.exp(-1) + 1e-3 && s.m1Rate > 30, `m1 ${s.m1Rate}`);
    assert.equal(s.count, 100);
    assert.ok(Math.abs(s.meanRate - 100 / 61) < 0.01);
  });

  it('the same name returns the same metric; another kind or a bad name is an error with a code', () => {
    const reg = new MetricRegistry();
    assert.equal(reg.counter('a'), reg.counter('a'));
    const g1 = reg.gauge('g', () => 1);
    assert.equal(reg.gauge('g', () => 2), g1, 'the first gauge stays');
    assert.throws(() => reg.meter('a'), (e: unknown) => e instanceof MetricRegistrationError && e.code === 'HSTORM_ERR_SDK_METRIC' && /already registered as a counter/.test(e.message));
    for (const bad of ['', '9lives', 'with space', 'x'.repeat(129)]) {
      assert.throws(() => reg.counter(bad), /metric name .* is not allowed/, bad);
    }
    assert.equal(reg.size, 2);
  });

  it('the TopologyContext offers Storm\'s register* methods', () => {
    const ctx = fakeContext();
    ctx.registerCounter('seen').inc(3);
    ctx.registerMeter('rate').mark();
    ctx.registerHistogram('lat').update(5);
    ctx.registerGauge('q', () => 2);
    const s = ctx.metrics.snapshot();
    assert.equal(s.counters.seen, 3);
    assert.equal(s.meters.rate!.count, 1);
    assert.equal(s.histograms.lat!.count, 1);
    assert.equal(s.gauges.q, 2);
  });
});
