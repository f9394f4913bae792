/**
 * Storm's names on the builder and the context: setNumTasks, noneGrouping, partialKeyGrouping, customGrouping, and
 * TopologyContext's getThis* / getComponent* getters.
 */
import assert from 'node:assert/strict';
import { BasicBolt, Fields, Spout, TopologyBuilder, TopologyValidationError } from '../../../topology-sdk/index.js';
import type { CustomStreamGrouping, GlobalStreamId, OutputFieldsDeclarer, TopologyContext } from '../../../topology-sdk/index.js';
import { stormContextGetters } from '../../../topology-sdk/internal/storm-context.js';
import { topologyDefSchema } from '../../../common/record-schemas.js';
import { computeTasks } from '../../../common/topology-def.js';
import { checkSameShape } from '../../../worker/load-topology.js';

class Words extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(new Fields('word', 'n'));
    d.declareStream('lines', ['line']);
  }
}

class Sink extends BasicBolt {
  execute(): void {}
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['out']);
  }
}

/** Every tuple to the first target task. */
class FirstTask implements CustomStreamGrouping {
  targets: readonly number[] = [];
  prepare(_ctx: TopologyContext, _stream: GlobalStreamId, targetTasks: readonly number[]): void {
    this.targets = targetTasks;
  }
  chooseTasks(): readonly number[] {
    return [this.targets[0]!];
  }
}

describe('topology-sdk: Storm names', () => {
  it('setNumTasks gives the component that many tasks (one executor each), on spouts and bolts', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words(), 1).setNumTasks(3);
    b.setBolt('sink', () => new Sink(), 2).setNumTasks(5).shuffleGrouping('words');
    const def = b.createTopology().def;
    assert.deepEqual(def.components.map((c) => c.parallelism), [3, 5]);
    assert.equal(computeTasks(def, 1).filter((t) => t.component === 'sink').length, 5);
  });

  it('setNumTasks below 1 or not an integer is refused at createTopology', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words()).setNumTasks(0);
    assert.throws(() => b.createTopology(), (e: unknown) => e instanceof TopologyValidationError && /setNumTasks needs an integer ≥ 1, got 0/.test(e.message));
  });

  it('noneGrouping, partialKeyGrouping (with or without a stream) and customGrouping land in the definition, which stays JSON', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words());
    b.setBolt('a', () => new Sink()).noneGrouping('words');
    b.setBolt('b', () => new Sink()).partialKeyGrouping('words', new Fields('word'));
    b.setBolt('c', () => new Sink()).partialKeyGrouping('words', 'lines', ['line']);
    b.setBolt('d', () => new Sink(), 3).customGrouping('words', new FirstTask()).customGrouping('words', 'lines', () => new FirstTask());
    const topo = b.createTopology();
    const inputs = Object.fromEntries(topo.def.components.map((c) => [c.id, c.inputs]));
    assert.deepEqual(inputs.a, [{ component: 'words', stream: 'default', grouping: { type: 'none' } }]);
    assert.deepEqual(inputs.b, [{ component: 'words', stream: 'default', grouping: { type: 'partialKey', fields: ['word'] } }]);
    assert.deepEqual(inputs.c, [{ component: 'words', stream: 'lines', grouping: { type: 'partialKey', fields: ['line'] } }]);
    assert.deepEqual(inputs.d, [
      { component: 'words', stream: 'default', grouping: { type: 'custom', name: 'FirstTask' } },
      { component: 'words', stream: 'lines', grouping: { type: 'custom', name: 'FirstTask' } },
    ]);
    // What nimbus stores: JSON through the record schema, unchanged.
    const stored = topologyDefSchema.parse(JSON.parse(JSON.stringify(topo.def)));
    assert.deepEqual(stored, topo.def);
  });

  it('each emitting task gets its own grouping object, from an object (copied with its prototype) or a function', () => {
    const shared = new FirstTask();
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words());
    b.setBolt('d', () => new Sink(), 2).customGrouping('words', shared).customGrouping('words', 'lines', () => new FirstTask());
    const topo = b.createTopology();
    const g1 = topo.customGrouping('d', 'words', 'default')!;
    const g2 = topo.customGrouping('d', 'words', 'default')!;
    assert.ok(g1 instanceof FirstTask && g2 instanceof FirstTask);
    assert.notEqual(g1, g2);
    assert.notEqual(g1, shared);
    const f1 = topo.customGrouping('d', 'words', 'lines')!;
    assert.notEqual(f1, topo.customGrouping('d', 'words', 'lines'));
    assert.equal(topo.customGrouping('d', 'words', 'nope'), undefined);
  });

  it('a custom grouping that is not one, and a custom grouping definition with no object, are refused', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words());
    b.setBolt('d', () => new Sink()).customGrouping('words', { chooseTasks: () => [1] } as unknown as CustomStreamGrouping);
    assert.throws(() => b.createTopology(), (e: unknown) => e instanceof TopologyValidationError && /customGrouping\("words", "default"\): the grouping must be a CustomStreamGrouping/.test(e.message));
    const c = new TopologyBuilder();
    c.setSpout('words', () => new Words());
    c.setBolt('d', () => new Sink()).grouping('words', { type: 'custom', name: 'X' });
    assert.throws(() => c.createTopology(), (e: unknown) => e instanceof TopologyValidationError && /needs customGrouping\(component, stream, grouping\)/.test(e.message));
    const d = new TopologyBuilder();
    d.setSpout('words', () => new Words());
    d.setBolt('d', () => new Sink()).customGrouping('words', () => ({}) as CustomStreamGrouping);
    assert.throws(() => d.createTopology(), /returned no CustomStreamGrouping/);
  });

  it('partialKeyGrouping on a field the stream does not declare is refused', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words());
    b.setBolt('b', () => new Sink()).partialKeyGrouping('words', ['wrod']);
    assert.throws(() => b.createTopology(), /partial key grouping on field "wrod", which stream "default" of "words" does not declare/);
  });

  it('a worker whose module builds another custom grouping than the one submitted is refused', () => {
    const build = (g: () => CustomStreamGrouping) => {
      const b = new TopologyBuilder();
      b.setSpout('words', () => new Words());
      b.setBolt('d', () => new Sink()).customGrouping('words', g);
      return b.createTopology().def;
    };
    class Other extends FirstTask {}
    assert.throws(() => checkSameShape(build(() => new FirstTask()), build(() => new Other()), 'm.js'), /built a different topology/);
  });
});

describe('topology-sdk: TopologyContext getters (Storm names)', () => {
  const b = new TopologyBuilder();
  b.setSpout('words', () => new Words(), 2);
  b.setBolt('split', () => new Sink(), 3).shuffleGrouping('words').fieldsGrouping('words', 'lines', ['line']);
  b.setBolt('count', () => new Sink(), 1).globalGrouping('split');
  const def = b.createTopology().def;
  const tasks = computeTasks(def, 1);
  const tasksOf = (c: string) => tasks.filter((t) => t.component === c).map((t) => t.task).reverse();
  const ctx = stormContextGetters({ def, topologyId: 'wc-1', componentId: 'split', taskId: 4, workerPort: 6701, tasksOf });

  it('says who this task is', () => {
    assert.equal(ctx.getThisTaskId(), 4);
    assert.equal(ctx.getThisComponentId(), 'split');
    assert.equal(ctx.getThisTaskIndex(), 1);
    assert.equal(ctx.getStormId(), 'wc-1');
    assert.equal(ctx.getThisWorkerPort(), 6701);
  });

  it('lists components, their tasks (sorted) and the component of a task', () => {
    assert.deepEqual(ctx.getComponentTasks('split'), [3, 4, 5]);
    assert.deepEqual(ctx.getComponentTasks('nope'), []);
    assert.deepEqual([...ctx.getComponentIds()], ['words', 'split', 'count']);
    assert.equal(ctx.getComponentId(6), 'count');
    assert.equal(ctx.getComponentId(7), '__acker');
    assert.equal(ctx.getComponentId(99), undefined);
  });

  it('gives output fields as Fields, and names an unknown component or stream', () => {
    assert.deepEqual(ctx.getComponentOutputFields('words').toList(), ['word', 'n']);
    assert.deepEqual(ctx.getComponentOutputFields('words', 'lines').toList(), ['line']);
    assert.deepEqual(ctx.getThisOutputFields().toList(), ['out']);
    assert.deepEqual([...ctx.getThisStreams()], ['default']);
    assert.deepEqual([...ctx.getComponentStreams('words')], ['default', 'lines']);
    assert.throws(() => ctx.getComponentOutputFields('words', 'nope'), (e: unknown) => (e as { code?: string }).code === 'HSTORM_ERR_SDK_CONTEXT_LOOKUP' && /declares no stream "nope" \(streams: default, lines\)/.test((e as Error).message));
    assert.throws(() => ctx.getComponentOutputFields('nope'), /no component "nope"/);
  });

  it('gives sources (GlobalStreamId → grouping), targets (stream → component → grouping) and input fields', () => {
    const sources = [...ctx.getThisSources()].map(([id, g]) => [id.componentId, id.streamId, g.type]);
    assert.deepEqual(sources, [
      ['words', 'default', 'shuffle'],
      ['words', 'lines', 'fields'],
    ]);
    const targets = ctx.getThisTargets();
    assert.deepEqual([...targets.keys()], ['default']);
    assert.deepEqual(targets.get('default')?.get('count'), { type: 'global' });
    const input = ctx.getThisInputFields();
    assert.deepEqual(input.get('words')?.get('lines')?.toList(), ['line']);
  });
});
