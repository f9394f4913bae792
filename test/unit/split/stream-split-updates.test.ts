/**
 * How a StreamSplit carries on across γ updates and thin windows: the
 * decision window is walked on, not restarted, when γ changes, and a window
 * that yields no δ leaves the reported δ and latencies as they were.
 */
import assert from 'node:assert/strict';
import type { SpoutOutputCollector } from '../../../topology-sdk/components.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import { SPLIT_GAMMA_SIGNAL, StreamSplit, type GammaUpdate } from '../../../topology-sdk/stream-split.js';
import { FakeSignalBus, fakeContext } from '../../helpers/fake-context.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';

function recordingCollector(): SpoutOutputCollector & { streams: string[] } {
  const streams: string[] = [];
  return {
    streams,
    emit(a: unknown, b?: unknown, c?: unknown) {
      streams.push(readEmitArgs('spout', 'spout', a, b, c).stream);
      return [1];
    },
    emitDirect() {},
    reportError() {},
  };
}

describe('StreamSplit across updates', () => {
  const splits: StreamSplit[] = [];
  afterEach(() => {
    for (const s of splits.splice(0)) s.close();
  });

  it('walks on through the decision window when γ is updated more often than the window is long', async () => {
    const bus = new FakeSignalBus();
    // Two tasks so that the one under test (index 1) is not the controller and only applies what it is sent.
    const ctx = fakeContext({ bus, tasks: [1, 2], taskId: 2 });
    const split = new StreamSplit(ctx, { 'hstorm.split.window.ms': 60_000 }, { gamma0: 0.95, clock: new ManualClock() });
    splits.push(split);
    const out = recordingCollector();
    const update: GammaUpdate = { gamma: 0.95, delta: 0.95, latCpuMs: 19, latGpuMs: 1, window: 1 };
    // γ = 0.95 is the window 19/20 with its one CPU slot last; an update every 5 tuples must not keep it from coming up.
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 5; i++) split.emit(out, [i]);
      await bus.send('spout', SPLIT_GAMMA_SIGNAL, update, { component: 'spout', task: 1 });
      await settle(); // the bus delivers on setImmediate
    }
    assert.equal(split.metrics().applied.length, 8);
    assert.equal(out.streams.filter((s) => s === 'cpu').length, 2, `40 tuples at γ = 0.95: ${out.streams.join(' ')}`);
  });

  it('keeps showing the last δ and latencies through windows that yield none', async () => {
    const clock = new ManualClock();
    const bus = new FakeSignalBus(() => clock.now());
    const ctx = fakeContext({ bus });
    const split = new StreamSplit(ctx, { 'hstorm.split.sample.ms': 5, 'hstorm.split.window.ms': 20, 'hstorm.split.theta': 1 }, { clock });
    splits.push(split);
    const complete = (stream: string, ms: number) => {
      for (const l of ctx.completeListeners) l(stream, ms, true);
    };
    complete('cpu', 8);
    complete('gpu', 2);
    await clock.advance(60);
    const first = split.metrics();
    assert.ok(Math.abs(first.gamma - 0.8) < 1e-9, `γ ${first.gamma}`);
    assert.equal(bus.sent.length, 1);
    // Now only the GPU side completes (one side without samples): no δ, γ stays, the figures behind it stay shown.
    for (let i = 0; i < 4; i++) {
      complete('gpu', 50);
      await clock.advance(20);
    }
    const later = split.metrics();
    assert.equal(first.windows, 3);
    assert.equal(later.windows, first.windows + 4);
    assert.equal(bus.sent.length, 1, 'nothing published');
    assert.equal(later.gamma, first.gamma);
    assert.equal(later.delta, first.delta);
    assert.equal(later.latCpuMs, 8);
    assert.equal(later.latGpuMs, 2);
  });
});
