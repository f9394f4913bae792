import assert from 'node:assert/strict';
import { captureDef, decodeValues, encodeValues, CAPTURE_COMPONENT } from '../../../testing/testing-parts.js';
import { wrapForTesting } from '../../../testing/wrap-topology.js';
import { BasicBolt, Spout, TopologyBuilder, type OutputFieldsDeclarer } from '../../../topology-sdk/index.js';

class S extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['x']).declareStream('side', ['y']).declareStream('d', ['z'], { direct: true });
  }
}
class B extends BasicBolt {
  execute(): void {}
}

describe('testing/testing-parts', () => {
  it('round-trips tuple values with bigints and bytes through the capture file encoding', () => {
    const values = [1, 'a', 1n << 70n, new Uint8Array([0, 255]), { nested: [2n] }, null];
    assert.deepEqual(decodeValues(encodeValues(values)), values);
  });

  it('subscribes the capture bolt to every non-direct stream of every component', () => {
    const b = new TopologyBuilder();
    b.setSpout('s', () => new S(), 2);
    b.setBolt('b', () => new B(), 1).shuffleGrouping('s');
    const def = captureDef(b.createTopology().def.components);
    assert.equal(def.id, CAPTURE_COMPONENT);
    assert.deepEqual(
      def.inputs.map((i) => `${i.component}/${i.stream}/${i.grouping.type}`),
      ['s/default/global', 's/side/global'],
    );
  });

  it('refuses a mocked source that is not a spout of the topology', async () => {
    const b = new TopologyBuilder();
    b.setSpout('s', () => new S(), 1);
    b.setBolt('b', () => new B(), 1).shuffleGrouping('s');
    const t = b.createTopology();
    await assert.rejects(wrapForTesting(t, { config: { 'testing.mocked.sources': { b: [[1]] } } }), /mocked source "b" is not a spout of the topology \(spouts: s\)/);
    const wrapped = await wrapForTesting(t, { config: { 'testing.mocked.sources': { s: [[1]] }, 'testing.capture.dir': '/tmp/x' } });
    assert.deepEqual(wrapped.def.components.map((c) => c.id), ['s', 'b', CAPTURE_COMPONENT]);
    assert.equal(wrapped.factories.get('s')!().constructor.name, 'MockedSpout');
  });
});
