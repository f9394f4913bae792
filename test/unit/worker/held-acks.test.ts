/**
 * A stateful bolt's held acks (worker/executor/compact-held-acks.ts): what a
 * commit sends is exactly what the collector's ack would have sent at the
 * bolt's ack, root by root, and a rollback fails exactly the held roots — while
 * only numbers are kept, not the tuples.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Bolt, Spout, type Conf, type OutputCollector, type OutputFieldsDeclarer, type TopologyContext } from '../../../topology-sdk/index.js';
import { TopologyBuilder } from '../../../topology-sdk/topology-builder.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { heldAcksOf, type HeldAcks } from '../../../topology-sdk/internal/held-acks.js';
import { BoltExecutor } from '../../../worker/executor/bolt-executor.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { componentSettings } from '../../../worker/worker-settings.js';
import { withDefaults } from '../../../common/config/index.js';
import { FakeHost } from '../../helpers/fake-host.js';

class Src extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w']);
  }
}

class Relay extends Bolt {
  collector!: OutputCollector;
  override prepare(_c: Conf, _x: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }
  execute(): void {}
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w']);
  }
}

/** Roots spread over two ackers (tasks 100 and 101), as the worker's ackerFor spreads them; root lo 0 has none. */
class AckingHost extends FakeHost {
  override ackerFor(lo?: number): number | null {
    return lo === undefined || lo === 0 ? null : 100 + (lo % 2);
  }
}

async function relay(): Promise<{ host: AckingHost; bolt: Relay; ex: BoltExecutor }> {
  const b = new TopologyBuilder();
  b.setSpout('src', () => new Src());
  b.setBolt('relay', () => new Relay()).shuffleGrouping('src');
  b.setBolt('sink', () => new Relay()).shuffleGrouping('relay');
  const host = new AckingHost(b.createTopology({ 'topology.acker.executors': 0 }).def);
  const bolt = new Relay();
  const ex = new BoltExecutor(host, 'relay', 2, componentSettings(withDefaults({})), bolt);
  await ex.start();
  return { host, bolt, ex };
}

const uint32 = fc.integer({ min: 0, max: 0xffffffff });
/** One input: its roots (root halves, edge halves) and how many children the bolt anchors to it before acking. */
const input = fc.record({
  roots: fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), uint32, uint32, uint32), { minLength: 0, maxLength: 3 }),
  children: fc.integer({ min: 0, max: 2 }),
});

function tupleOf(i: { roots: [number, number, number, number][] }): RuntimeTuple {
  return new RuntimeTuple(['w'], new Fields(['w']), 'src', 'default', 1, i.roots.length === 0 ? null : i.roots.flat());
}

describe('worker: held acks of a stateful bolt', () => {
  it('a commit sends what ack would have sent, at ack time; a rollback fails the held roots; counts follow', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(input, { maxLength: 40 }), fc.nat(), async (inputs, cut) => {
        const sealedCount = inputs.length === 0 ? 0 : cut % (inputs.length + 1);
        // The same inputs and children, acked (the first sealedCount) or failed at once by one executor, held by the other.
        const direct = await relay();
        const holding = await relay();
        const held: HeldAcks = heldAcksOf(holding.bolt.collector);
        const expectedAcks: string[] = [];
        const expectedFails: string[] = [];
        inputs.forEach((i, n) => {
          const a = tupleOf(i);
          const b = tupleOf(i);
          for (let c = 0; c < i.children; c++) {
            direct.bolt.collector.emit(['w'], { anchors: a });
            holding.bolt.collector.emit(['w'], { anchors: b });
            // Emits draw fresh edge ids: make the held tuple's ack value the direct one's, so the sends compare.
            b.ackLo = a.ackLo;
            b.ackHi = a.ackHi;
          }
          const before = direct.host.sentAcks.length;
          if (n < sealedCount) direct.bolt.collector.ack(a);
          else direct.bolt.collector.fail(a);
          for (const s of direct.host.sentAcks.slice(before)) (n < sealedCount ? expectedAcks : expectedFails).push(JSON.stringify(s));
          held.hold(b);
          if (n + 1 === sealedCount) held.seal();
        });
        assert.equal(held.size, inputs.length);
        assert.equal(holding.host.sentAcks.length, 0, 'nothing is sent while held');
        held.ackSealed();
        assert.deepEqual(holding.host.sentAcks.map((s) => JSON.stringify(s)), expectedAcks);
        assert.equal(held.size, inputs.length - sealedCount);
        assert.equal(holding.ex.metrics.acked, sealedCount);
        const acks = holding.host.sentAcks.length;
        held.failAll();
        assert.deepEqual(holding.host.sentAcks.slice(acks).map((s) => JSON.stringify(s)), expectedFails);
        assert.equal(holding.ex.metrics.failed, inputs.length - sealedCount);
        assert.equal(held.size, 0);
      }),
      { numRuns: 200 },
    );
  });

  it('holds more roots than its first buffer, and what was held after a seal waits for the next one', async () => {
    const { host, bolt } = await relay();
    const held = heldAcksOf(bolt.collector);
    const n = 5000;
    for (let i = 1; i <= n; i++) held.hold(new RuntimeTuple(['w'], new Fields(['w']), 'src', 'default', 1, [i, 0, i, 0]));
    held.seal();
    held.hold(new RuntimeTuple(['w'], new Fields(['w']), 'src', 'default', 1, [n + 1, 0, 7, 0]));
    held.ackSealed();
    assert.deepEqual(
      host.sentAcks.map((s) => s.words[0]),
      Array.from({ length: n }, (_, i) => i + 1),
    );
    held.seal();
    held.ackSealed();
    assert.deepEqual(host.sentAcks.at(-1)!.words, [n + 1, 0, 7, 0]);
  });
});
