/**
 * A checkpoint's COMMIT, ROLLBACK and INITSTATE go ahead of the data queued at
 * a bolt; its PREPARE (the barrier) and every data tuple keep their order.
 */
import assert from 'node:assert/strict';
import { Bolt, Spout, type OutputFieldsDeclarer, type Tuple } from '../../../topology-sdk/index.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { BoundedQueue } from '../../../worker/executor/bounded-queue.js';
import { BoltExecutor } from '../../../worker/executor/bolt-executor.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { overtakesData } from '../../../worker/executor/checkpoint-lane.js';
import { TopologyBuilder } from '../../../topology-sdk/topology-builder.js';
import { componentSettings } from '../../../worker/worker-settings.js';
import { withDefaults } from '../../../common/config/index.js';
import { CHECKPOINT_COMPONENT, CHECKPOINT_STREAM } from '../../../common/topology-def.js';
import { FakeHost } from '../../helpers/fake-host.js';

const CP = new Fields(['txid', 'action']);
const W = new Fields(['w']);
const cp = (txid: number, action: string) => new RuntimeTuple([txid, action], CP, CHECKPOINT_COMPONENT, CHECKPOINT_STREAM, 9, null);
const data = (w: string) => new RuntimeTuple([w], W, 'src', 'default', 1, null);
const label = (t: RuntimeTuple | undefined) => (t === undefined ? '-' : t.sourceStreamId === CHECKPOINT_STREAM ? String(t.values[1]) : String(t.values[0]));

class Src extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['w']);
  }
}

class Sink extends Bolt {
  execute(_t: Tuple): void {}
  override declareOutputFields(_d: OutputFieldsDeclarer): void {}
}

describe('worker: the checkpoint lane', () => {
  it('BoundedQueue.unshift puts an item first, across the ring\'s wrap and growth', () => {
    const q = new BoundedQueue<number>(16);
    for (let i = 0; i < 10; i++) q.push(i);
    for (let i = 0; i < 8; i++) q.shift(); // head in the middle of the ring
    for (let i = 10; i < 20; i++) q.push(i);
    q.unshift(-1);
    for (let i = 20; i < 40; i++) q.push(i); // grows past 16 with the unshifted item at the head
    q.unshift(-2);
    const out: number[] = [];
    for (let x = q.shift(); x !== undefined; x = q.shift()) out.push(x);
    assert.deepEqual(out, [-2, -1, 8, 9, ...Array.from({ length: 30 }, (_, i) => i + 10)]);
  });

  it('only COMMIT, ROLLBACK and INITSTATE overtake; PREPARE and data do not', () => {
    assert.deepEqual(['COMMIT', 'ROLLBACK', 'INITSTATE', 'PREPARE'].map((a) => overtakesData(cp(3, a))), [true, true, true, false]);
    assert.equal(overtakesData(data('COMMIT')), false, 'a data tuple holding the word COMMIT is data');
    assert.equal(overtakesData(new RuntimeTuple([3, 'COMMIT'], CP, 'src', 'default', 1, null)), false, 'the action only counts on the checkpoint stream');
  });

  it("a bolt executor's queue: the COMMIT first, the PREPARE behind the data that came before it", () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Src());
    b.setBolt('sink', () => new Sink()).shuffleGrouping('src');
    const host = new FakeHost(b.createTopology({ 'topology.acker.executors': 0 }).def);
    const ex = new BoltExecutor(host, 'sink', host.tasksOf('sink')[0]!, componentSettings(withDefaults({})), new Sink());
    ex.enqueue(data('a'));
    ex.enqueue(cp(1, 'PREPARE'));
    ex.enqueue(data('b'));
    ex.enqueue(cp(1, 'COMMIT'));
    const order: string[] = [];
    for (let t = ex.queue.shift(); t !== undefined; t = ex.queue.shift()) order.push(label(t));
    assert.deepEqual(order, ['COMMIT', 'a', 'PREPARE', 'b']);
  });
});
