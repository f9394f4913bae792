/**
 * The split follows what runs (issue 30): a side whose subscriber has no running task gets no tuples at once, the
 * controller publishes γ = 0 or 1 at its next window with the reason, γ restarts from γ0 when the side is back and
 * learns again, and with both sides gone γ stays. Transitions are driven by placement changes on a fake context and
 * windows by a manual clock: no test waits on real time.
 */
import assert from 'node:assert/strict';
import { StreamSplit, SPLIT_GAMMA_SIGNAL, type GammaUpdate } from '../../../topology-sdk/stream-split.js';
import type { SpoutOutputCollector } from '../../../topology-sdk/components.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import type { ComponentPlacement } from '../../../topology-sdk/context.js';
import type { ComponentDef, TopologyDef } from '../../../common/topology-def.js';
import { FakeSignalBus, fakeContext, type FakeContext } from '../../helpers/fake-context.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const bolt = (id: string, stream: string): ComponentDef => ({
  id,
  kind: 'bolt',
  parallelism: 2,
  streams: [],
  inputs: [{ component: 'spout', stream, grouping: { type: 'shuffle' } }],
  gpu: null,
  config: {},
});

const DEF: TopologyDef = {
  components: [
    { id: 'spout', kind: 'spout', parallelism: 1, streams: [{ id: 'cpu', fields: ['x'], direct: false }, { id: 'gpu', fields: ['x'], direct: false }], inputs: [], gpu: null, config: {} },
    bolt('cpu-bolt', 'cpu'),
    bolt('gpu-bolt', 'gpu'),
  ],
  config: {},
};

/** Streams of what the split emitted, in order. */
function collector(): SpoutOutputCollector & { streams: string[] } {
  const streams: string[] = [];
  return {
    streams,
    emit: (a: unknown, b?: unknown, c?: unknown) => {
      streams.push(readEmitArgs('spout', 'spout', a, b, c).stream);
      return [1];
    },
    emitDirect: () => undefined,
    reportError: () => undefined,
  };
}

describe('topology-sdk/stream-split: sides without a running task', () => {
  const splits: StreamSplit[] = [];
  afterEach(() => splits.splice(0).forEach((s) => s.close()));

  /** A split (the controller) over DEF whose sides run or not as `running` says; γ0 0.5, θ 1, window 20 ms. */
  function setup(running: { cpu: boolean; gpu: boolean }) {
    const clock = new ManualClock();
    const bus = new FakeSignalBus(() => clock.now());
    const placement = (c: string): ComponentPlacement => {
      const up = c === 'cpu-bolt' ? running.cpu : c === 'gpu-bolt' ? running.gpu : true;
      return up ? { running: [1, 2], unplaced: [], reason: null } : { running: [], unplaced: [1, 2], reason: 'no GPU with a free slot' };
    };
    const ctx: FakeContext = fakeContext({ bus, def: DEF, placement });
    const split = new StreamSplit(ctx, { 'hstorm.split.sample.ms': 5, 'hstorm.split.window.ms': 20, 'hstorm.split.theta': 1 }, { clock });
    splits.push(split);
    const complete = (stream: string, ms: number) => {
      for (const l of ctx.completeListeners) l(stream, ms, true);
    };
    const updates = () => bus.sent.map((s) => s.value as GammaUpdate);
    return { clock, bus, ctx, split, complete, updates, running };
  }

  it('sends nothing to a side with no running task, from the first tuple, and publishes γ = 0 at the next window, with why', async () => {
    const t = setup({ cpu: true, gpu: false });
    const out = collector();
    for (let i = 0; i < 20; i++) t.split.emit(out, [i]);
    assert.deepEqual(new Set(out.streams), new Set(['cpu']), 'no tuple to the GPU stream');
    const m = t.split.metrics();
    assert.equal(m.sides!.gpu.running, 0);
    assert.equal(m.sides!.gpu.downSince, t.clock.now());
    assert.match(m.sides!.gpu.reason!, /^no running task of gpu-bolt: no GPU with a free slot$/);
    assert.equal(m.sides!.cpu.downSince, null);
    await t.clock.advance(20);
    assert.equal(t.updates().length, 1);
    assert.equal(t.updates()[0]!.gamma, 0);
    assert.match(t.updates()[0]!.reason!, /^GPU side: no running task of gpu-bolt/);
    assert.equal(t.split.gamma, 0, 'the controller applied its own update');
    assert.equal(t.bus.sent[0]!.name, SPLIT_GAMMA_SIGNAL);
    await t.clock.advance(100);
    assert.equal(t.updates().length, 1, 'published once, not at every window');
  });

  it('restarts from γ0 when the side runs again, and learns from there', async () => {
    const t = setup({ cpu: true, gpu: false });
    await t.clock.advance(20);
    assert.equal(t.split.gamma, 0);
    t.running.gpu = true;
    t.ctx.firePlacementChange();
    assert.equal(t.split.metrics().sides!.gpu.downSince, null);
    await t.clock.advance(20);
    assert.equal(t.split.gamma, 0.5);
    assert.match(t.updates().at(-1)!.reason!, /restarts from hstorm.split.gamma0/);
    // Then the usual rule: δ = 8 / (8 + 2) = 0.8 with θ = 1.
    t.complete('cpu', 8);
    t.complete('gpu', 2);
    await t.clock.advance(20);
    assert.ok(Math.abs(t.split.gamma - 0.8) < 1e-9, `γ ${t.split.gamma}`);
    assert.equal(t.updates().at(-1)!.reason, undefined, 'a learned γ carries no reason');
  });

  it('goes all the way to the GPU side when the CPU side has no running task', async () => {
    const t = setup({ cpu: false, gpu: true });
    const out = collector();
    for (let i = 0; i < 10; i++) t.split.emit(out, [i]);
    assert.deepEqual(new Set(out.streams), new Set(['gpu']));
    await t.clock.advance(20);
    assert.equal(t.split.gamma, 1);
    assert.match(t.updates()[0]!.reason!, /^CPU side: /);
  });

  it('leaves γ as it is with both sides gone, and ignores the one-sided samples of a window with a side down', async () => {
    const t = setup({ cpu: true, gpu: true });
    t.complete('cpu', 8);
    t.complete('gpu', 2);
    await t.clock.advance(20);
    assert.ok(Math.abs(t.split.gamma - 0.8) < 1e-9);
    t.running.cpu = false;
    t.running.gpu = false;
    t.ctx.firePlacementChange();
    const before = t.updates().length;
    await t.clock.advance(60);
    assert.equal(t.updates().length, before, 'nothing published');
    assert.ok(Math.abs(t.split.gamma - 0.8) < 1e-9);
    const m = t.split.metrics();
    assert.ok(m.sides!.cpu.downSince !== null && m.sides!.gpu.downSince !== null);
    // The GPU side comes back alone: all to it; its samples while the CPU side is down do not move a learned γ.
    t.running.gpu = true;
    t.ctx.firePlacementChange();
    t.complete('gpu', 50);
    await t.clock.advance(20);
    assert.equal(t.split.gamma, 1);
  });
});
