/**
 * hstorm/testing as Storm users test: mocked sources per stream, direct streams captured, values with their real
 * types; Storm's LocalCluster (`start()` with no arguments, `submitTopology(name, conf, topology)`); a crash-looping
 * worker fails the test at once.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { completeTopology, LocalCluster, MockedSources, WorkerCrashLoopError } from '../../testing/index.js';
import { BasicBolt, Spout, TopologyBuilder, type OutputFieldsDeclarer } from '../../topology-sdk/index.js';
import type { StormTopology } from '../../topology-sdk/topology-builder.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { waitFor } from '../helpers/wait-for.js';

const SHAPES = join(PACKAGE_ROOT, 'dist/test/fixtures/testing-shapes-topology.js');
const byN = (a: unknown[], b: unknown[]) => (a[0] as number) - (b[0] as number);

describe('hstorm/testing (real worker processes)', function () {
  this.timeout(180_000);

  it('completeTopology: mocked sources per stream, direct streams captured, values with their real types (two workers)', async () => {
    const mocked = new MockedSources().addMockData('numbers', 'odd', [1], [3]).addMockData('numbers', 'even', [2], [4]);
    const result = await completeTopology(SHAPES, { mockedSources: mocked, timeoutMs: 120_000 });
    assert.equal(result.acked.numbers, 4);
    assert.equal(result.failed.numbers, 0);
    assert.deepEqual(result.readTuples('numbers', 'odd').sort(byN), [[1], [3]]);
    assert.deepEqual(result.readTuples('numbers', 'even').sort(byN), [[2], [4]]);
    const labels = result.readTuples('label').sort(byN);
    assert.equal(labels.length, 4);
    for (const [n, label, at] of labels as [number, Map<string, string>, Date][]) {
      assert.ok(label instanceof Map, `label of ${n} is a ${Object.prototype.toString.call(label)}`);
      assert.equal(label.get('parity'), n % 2 ? 'odd' : 'even');
      assert.ok(at instanceof Date && at.getTime() === 1000 * n, `at of ${n}`);
    }
    // The dealer's direct emits: captured, with the task each went to.
    assert.deepEqual(result.readTuples('dealer', 'picked').sort(byN), [[1], [2], [3], [4]]);
    const targets = new Set(result.tuples.filter((t) => t.stream === 'picked').map((t) => t.directTask));
    assert.equal(targets.size, 2, 'two pick tasks received');
  });

  it('completeTopology takes Storm\'s plain form too: a bare list goes on the spout\'s first stream', async () => {
    const result = await completeTopology(pathToFileURL(SHAPES), { mockedSources: { numbers: [[5]] }, config: { 'topology.workers': 1 } });
    assert.deepEqual(result.readTuples('numbers', 'odd'), [[5]]);
    assert.deepEqual(result.readTuples('dealer', 'picked'), [[5]]);
  });

  it('completeTopology stops at once, naming the component, when a worker keeps dying at start', async () => {
    const started = Date.now();
    await assert.rejects(completeTopology(join(PACKAGE_ROOT, 'dist/test/fixtures/prepare-throws-topology.js'), { timeoutMs: 150_000 }), (err: unknown) => {
      assert.ok(err instanceof WorkerCrashLoopError, String(err));
      assert.match(err.message, /component "broken" task \d+ failed to start/);
      return true;
    });
    assert.ok(Date.now() - started < 120_000);
  });

  it("LocalCluster.start() with no arguments, and Storm's submitTopology(name, conf, topology) from a module path or a topology its module built", async () => {
    const cluster = await LocalCluster.start();
    try {
      await cluster.submitTopology('by-path', { 'topology.workers': 1 }, SHAPES);
      const built = ((await import(pathToFileURL(SHAPES).href)) as { default: () => StormTopology }).default();
      assert.equal(built.origin, SHAPES, 'createTopology recorded the module that called it');
      const { topologyId } = await cluster.submitTopology('by-topology', { 'topology.workers': 1 }, built);
      await waitFor('the second topology\'s worker beating', async () => (await cluster.heartbeats(topologyId)).length === 1, 60_000);
      // A topology built here, in a file whose default export does not build it, cannot run in workers: refused, saying so.
      class Idle extends Spout {
        nextTuple(): void {}
        declareOutputFields(d: OutputFieldsDeclarer): void {
          d.declare(['x']);
        }
      }
      class Sink extends BasicBolt {
        execute(): void {}
      }
      const b = new TopologyBuilder();
      b.setSpout('idle', () => new Idle());
      b.setBolt('sink', () => new Sink()).shuffleGrouping('idle');
      const inline = b.createTopology();
      await assert.rejects(cluster.submitTopology('inline', {}, inline), /the topology was built in .*testing-api\.test\.js, but that module's default export builds another one \(or none\)/);
      await cluster.killTopology('by-path');
      await cluster.killTopology('by-topology');
    } finally {
      await cluster.close();
    }
  });
});
