import assert from 'node:assert/strict';
import { StreamSplit, SPLIT_GAMMA_SIGNAL } from '../../../topology-sdk/stream-split.js';
import type { SpoutOutputCollector } from '../../../topology-sdk/components.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import type { SplitMetrics } from '../../../common/storm-base.js';
import { ConfigError } from '../../../common/errors.js';
import { OutputFieldsDeclarer } from '../../../topology-sdk/output-declarer.js';
import { FakeSignalBus, fakeContext, type FakeContext } from '../../helpers/fake-context.js';
import { ManualClock } from '../../helpers/manual-clock.js';

/** A collector whose messages complete (acked) after a fixed latency per stream, reported to the task's listeners. */
function completingCollector(ctx: FakeContext, latencyMs: Record<string, number>): SpoutOutputCollector & { streams: string[] } {
  const streams: string[] = [];
  return {
    streams,
    emit(a: unknown, b?: unknown, c?: unknown) {
      const { stream, messageId } = readEmitArgs('spout', 'spout', a, b, c);
      streams.push(stream);
      if (messageId !== undefined) {
        setImmediate(() => {
          for (const l of ctx.completeListeners) l(stream, latencyMs[stream] ?? 0, true);
        });
      }
      return [1];
    },
    emitDirect() {},
    reportError() {},
  };
}

describe('StreamSplit', () => {
  const splits: StreamSplit[] = [];
  afterEach(() => {
    for (const s of splits.splice(0)) s.close();
  });
  const make = (...args: ConstructorParameters<typeof StreamSplit>) => {
    const s = new StreamSplit(...args);
    splits.push(s);
    return s;
  };

  it('sends each tuple to exactly one stream, following the decision window', () => {
    const ctx = fakeContext();
    const split = make(ctx, {}, { gamma0: 0.8 });
    const out = completingCollector(ctx, {});
    for (let i = 0; i < 10; i++) split.emit(out, [i]);
    assert.deepEqual(out.streams, ['gpu', 'gpu', 'gpu', 'gpu', 'cpu', 'gpu', 'gpu', 'gpu', 'gpu', 'cpu']);
    const m = split.metrics();
    assert.equal(m.sentGpu, 8);
    assert.equal(m.sentCpu, 2);
    assert.equal(m.gamma, 0.8);
  });

  it('declares both streams and rejects a bad θ or a capacity policy without its components', () => {
    const d = new OutputFieldsDeclarer('s');
    StreamSplit.declareStreams(d, ['a', 'b']);
    assert.deepEqual(
      d.result().map((s) => s.id),
      ['cpu', 'gpu'],
    );
    assert.throws(() => make(fakeContext(), { 'hstorm.split.theta': 1.5 }), ConfigError);
    assert.throws(() => make(fakeContext(), {}, { theta: -0.2 }), ConfigError);
    assert.throws(() => make(fakeContext(), { 'hstorm.split.policy': 'capacity' }), ConfigError);
  });

  it('converges to 0.8 ± 0.05 within 5 windows when the GPU side is 4× faster, and every task applies each γ', async () => {
    // A manual clock: the windows are stepped, not slept through, so the counts below are exact on any machine.
    const clock = new ManualClock();
    const bus = new FakeSignalBus(() => clock.now());
    const tasks = [3, 4];
    const ctxs = tasks.map((taskId) => fakeContext({ bus, taskId, tasks, component: 'spout' }));
    const conf = { 'hstorm.split.theta': 0.9, 'hstorm.split.sample.ms': 10, 'hstorm.split.window.ms': 60 };
    const split = ctxs.map((c) => make(c, conf, { clock }));
    const outs = ctxs.map((c) => completingCollector(c, { cpu: 8, gpu: 2 }));
    let id = 0;
    // Five windows and a margin for the last signal to land: 5 tuples per task every 2 ms for 340 ms.
    for (let step = 0; step < (60 * 5 + 40) / 2; step++) {
      for (let t = 0; t < tasks.length; t++) for (let i = 0; i < 5; i++) split[t]!.emit(outs[t]!, [id], { messageId: id++ });
      await clock.advance(2);
    }
    const ctrl = ctxs[0]!.sections.get('split')!() as SplitMetrics;
    const other = ctxs[1]!.sections.get('split')!() as SplitMetrics;
    assert.ok(ctrl.controller && !other.controller);
    assert.equal(ctrl.windows, 5);
    const published = bus.sent.filter((s) => s.name === SPLIT_GAMMA_SIGNAL);
    assert.ok(published.length >= 1);
    const firstGammas = published.slice(0, 5).map((s) => (s.value as { gamma: number }).gamma);
    assert.ok(
      firstGammas.some((g) => Math.abs(g - 0.8) <= 0.05),
      `γ within the first 5 windows: ${firstGammas.join(', ')}`,
    );
    assert.ok(Math.abs(ctrl.gamma - 0.8) <= 0.05, `γ now ${ctrl.gamma}`);
    assert.ok(Math.abs(ctrl.delta! - 0.8) < 1e-9, `δ ${ctrl.delta}`);
    assert.equal(ctrl.latCpuMs, 8);
    assert.equal(ctrl.latGpuMs, 2);
    // The non-controller task's samples reached the controller, and both tasks applied every published γ before the next window.
    for (const m of [ctrl, other]) {
      assert.deepEqual(
        m.applied.map((a) => a.seq),
        published.map((s) => s.seq),
      );
      for (const a of m.applied) assert.ok(a.appliedAt - a.publishedAt < 60, `applied ${a.appliedAt - a.publishedAt} ms after publication`);
    }
    assert.equal(other.gamma, ctrl.gamma);
    assert.ok(other.sentCpu > 0 && other.sentGpu > 0);
  });

  it('keeps γ while one side has no samples (nothing published)', async () => {
    const clock = new ManualClock();
    const bus = new FakeSignalBus(() => clock.now());
    const ctx = fakeContext({ bus });
    const split = make(ctx, { 'hstorm.split.sample.ms': 5, 'hstorm.split.window.ms': 20 }, { gamma0: 1, clock });
    const out = completingCollector(ctx, { gpu: 1 });
    for (let i = 0; i < 20; i++) split.emit(out, [i], { messageId: i });
    await clock.advance(70);
    const m = split.metrics();
    // Three windows ran (so "kept" is a decision, not the absence of one), each without a CPU sample.
    assert.equal(m.windows, 3);
    assert.equal(m.sentGpu, 20);
    assert.equal(m.gamma, 1);
    assert.equal(m.latCpuMs, null);
    assert.equal(bus.sent.length, 0);
  });

  it('capacity policy: δ from the components’ executors and service times', async () => {
    const bus = new FakeSignalBus();
    const ctx = fakeContext({
      bus,
      componentLoad: (c) => (c === 'cpu-bolt' ? { executors: 2, meanServiceMs: 4 } : { executors: 1, meanServiceMs: 0.5 }),
    });
    const clock = new ManualClock();
    const split = make(ctx, { 'hstorm.split.sample.ms': 5, 'hstorm.split.window.ms': 20, 'hstorm.split.policy': 'capacity', 'hstorm.split.theta': 1 }, { cpuComponent: 'cpu-bolt', gpuComponent: 'gpu-bolt', clock });
    await clock.advance(60);
    const m = split.metrics();
    assert.equal(m.policy, 'capacity');
    assert.equal(m.windows, 3);
    assert.ok(Math.abs(m.gamma - 0.8) < 1e-9, `γ ${m.gamma}`);
  });
});
