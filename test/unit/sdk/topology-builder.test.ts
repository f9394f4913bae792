import assert from 'node:assert/strict';
import { BasicBolt, Bolt, Spout, TopologyBuilder, TopologyValidationError, ConfigError } from '../../../topology-sdk/index.js';
import type { OutputFieldsDeclarer, Tuple } from '../../../topology-sdk/index.js';
import { buildConfig } from '../../../common/config/index.js';
import { toSchedTopology } from '../../../nimbus/sched-topology.js';
import { Grouping } from '../../../topology-sdk/grouping.js';
import { topologyDefSchema } from '../../../common/record-schemas.js';

class WordSpout extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word', 'count']);
    d.declareStream('lines', ['line']);
    d.declareStream('pick', ['x'], { direct: true });
  }
}

class SinkBolt extends Bolt {
  execute(_t: Tuple): void {}
}

class SplitBolt extends BasicBolt {
  execute(): void {}
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word']);
  }
}

/** Asserts a TopologyValidationError whose message contains every part (and, given, names the component). */
function invalid(parts: (string | RegExp)[], component?: string) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof TopologyValidationError, `not a TopologyValidationError: ${String(e)}`);
    assert.equal(e.code, 'HSTORM_ERR_TOPOLOGY_INVALID');
    for (const p of parts) {
      if (typeof p === 'string') assert.ok(e.message.includes(p), `"${e.message}" does not mention ${p}`);
      else assert.match(e.message, p);
    }
    if (component !== undefined) assert.equal(e.component, component);
    return true;
  };
}

function withSpout(): TopologyBuilder {
  const b = new TopologyBuilder();
  b.setSpout('words', () => new WordSpout(), 2);
  return b;
}

describe('topology-sdk/topology-builder', () => {
  describe('rejects, naming what is wrong', () => {
    it('a grouping on an unknown component', () => {
      const b = withSpout();
      b.setBolt('sink', () => new SinkBolt()).shuffleGrouping('wrods');
      assert.throws(() => b.createTopology(), invalid(['"sink"', 'unknown component "wrods"'], 'sink'));
    });

    it('a duplicate component id', () => {
      const b = withSpout();
      b.setBolt('words', () => new SinkBolt()).shuffleGrouping('words');
      assert.throws(() => b.createTopology(), invalid(['duplicate component id "words"']));
    });

    for (const p of [0, -1, 1.5, Number.NaN]) {
      it(`parallelism ${p}`, () => {
        const b = withSpout();
        b.setBolt('sink', () => new SinkBolt(), p).shuffleGrouping('words');
        assert.throws(() => b.createTopology(), invalid(['"sink"', 'parallelism', String(p)]));
      });
    }

    it('an invalid or reserved component id', () => {
      for (const id of ['', 'has space', '__acker', 'a/b']) {
        const b = withSpout();
        b.setBolt(id, () => new SinkBolt()).shuffleGrouping('words');
        assert.throws(() => b.createTopology(), invalid([`invalid component id "${id}"`]), id);
      }
    });

    it('a fields grouping on a field the stream does not declare', () => {
      const b = withSpout();
      b.setBolt('count', () => new SinkBolt()).fieldsGrouping('words', ['wrod']);
      assert.throws(() => b.createTopology(), invalid(['"count"', 'field "wrod"', 'word, count'], 'count'));
    });

    it('a fields grouping on no field', () => {
      const b = withSpout();
      b.setBolt('count', () => new SinkBolt()).fieldsGrouping('words', []);
      assert.throws(() => b.createTopology(), invalid(['names no field'], 'count'));
    });

    it('a subscription to a stream nobody declared', () => {
      const b = withSpout();
      b.setBolt('sink', () => new SinkBolt()).shuffleGrouping('words', 'sentences');
      assert.throws(() => b.createTopology(), invalid(['stream "sentences"', '"words"', 'nobody declared', 'default, lines, pick'], 'sink'));
    });

    it('a subscription to a bolt that declares no stream', () => {
      const b = withSpout();
      b.setBolt('a', () => new SinkBolt()).shuffleGrouping('words');
      b.setBolt('b', () => new SinkBolt()).shuffleGrouping('a');
      assert.throws(() => b.createTopology(), invalid(['declared: none'], 'b'));
    });

    it('a direct grouping on a stream that is not direct, and another grouping on a direct stream', () => {
      const b = withSpout();
      b.setBolt('d', () => new SinkBolt()).directGrouping('words');
      assert.throws(() => b.createTopology(), invalid(['direct grouping', 'stream "default"', 'not declared direct'], 'd'));

      const c = withSpout();
      c.setBolt('s', () => new SinkBolt()).shuffleGrouping('words', 'pick');
      assert.throws(() => c.createTopology(), invalid(['"pick"', 'directGrouping'], 's'));
    });

    it('a topology without a spout', () => {
      const b = new TopologyBuilder();
      b.setBolt('lonely', () => new SinkBolt());
      assert.throws(() => b.createTopology(), invalid(['no spout']));
    });

    it('a spout that subscribes to a stream', () => {
      const b = withSpout();
      // A spout's declarer has no grouping methods; reach the definition as a careless plugin could.
      const s = b.setSpout('other', () => new WordSpout()) as unknown as { comp: { inputs: unknown[] } };
      s.comp.inputs.push({ component: 'words', stream: 'default', grouping: { type: 'shuffle' } });
      assert.throws(() => b.createTopology(), invalid(['spout "other" cannot subscribe'], 'other'));
    });

    it('the same stream subscribed twice by one bolt', () => {
      const b = withSpout();
      b.setBolt('sink', () => new SinkBolt()).shuffleGrouping('words').allGrouping('words');
      assert.throws(() => b.createTopology(), invalid(['subscribes twice', '"default"', '"words"'], 'sink'));
    });

    it('a factory that throws, or returns something that is not a component', () => {
      const b = withSpout();
      b.setBolt('boom', () => {
        throw new Error('no GPU here');
      }).shuffleGrouping('words');
      assert.throws(() => b.createTopology(), invalid(['"boom"', 'factory threw', 'no GPU here'], 'boom'));

      const c = withSpout();
      c.setBolt('odd', () => ({}) as SinkBolt).shuffleGrouping('words');
      assert.throws(() => c.createTopology(), invalid(['"odd"', 'did not return a Spout or Bolt'], 'odd'));
    });

    it('a stream declared twice, a reserved stream id, or a duplicate field', () => {
      const declaring = (f: (d: OutputFieldsDeclarer) => void) =>
        class extends Spout {
          nextTuple(): void {}
          declareOutputFields(d: OutputFieldsDeclarer): void {
            f(d);
          }
        };
      const cases: [(d: OutputFieldsDeclarer) => void, string][] = [
        [(d) => d.declare(['a']).declare(['b']), 'declares stream "default" twice'],
        [(d) => d.declareStream('__ack_ack', ['a']), 'reserved'],
        [(d) => d.declare(['a', 'a']), 'field "a" declared twice'],
      ];
      for (const [f, msg] of cases) {
        const S = declaring(f);
        const b = new TopologyBuilder();
        b.setSpout('s', () => new S());
        assert.throws(() => b.createTopology(), invalid([msg], 's'), msg);
      }
    });

    it('an invalid topology config key or value', () => {
      const b = withSpout();
      assert.throws(() => b.createTopology({ 'topology.wrokers': 2 }), (e: unknown) => e instanceof ConfigError && e.key === 'topology.wrokers');
      assert.throws(() => b.createTopology({ 'hstorm.gpu.beta': 2 }), (e: unknown) => e instanceof ConfigError && e.key === 'hstorm.gpu.beta');
    });
  });

  describe('builds a valid topology', () => {
    function build() {
      const b = new TopologyBuilder();
      b.setSpout('words', () => new WordSpout(), 2);
      b.setBolt('split', () => new SplitBolt(), 3).shuffleGrouping('words', 'lines').addConfiguration('my.split.key', 7);
      b.setBolt('count', () => new SinkBolt(), 4).fieldsGrouping('split', ['word']).gpu({ memoryMB: 512 });
      b.setBolt('picked', () => new SinkBolt()).directGrouping('words', 'pick');
      b.setBolt('everyone', () => new SinkBolt(), 2).allGrouping('words').globalGrouping('split');
      b.setBolt('gpu2', () => new SinkBolt()).fieldsGrouping('words', 'default', ['count']).localOrShuffleGrouping('split').gpu();
      return b.createTopology({ 'topology.workers': 3, 'wordcount.limit': 10 });
    }

    it('with the streams each component declared', () => {
      const { def } = build();
      const words = def.components.find((c) => c.id === 'words')!;
      assert.equal(words.kind, 'spout');
      assert.equal(words.parallelism, 2);
      assert.deepEqual(words.streams, [
        { id: 'default', fields: ['word', 'count'], direct: false },
        { id: 'lines', fields: ['line'], direct: false },
        { id: 'pick', fields: ['x'], direct: true },
      ]);
      assert.deepEqual(def.components.find((c) => c.id === 'split')!.streams, [{ id: 'default', fields: ['word'], direct: false }]);
      assert.deepEqual(def.components.find((c) => c.id === 'count')!.streams, []);
    });

    it('with the inputs and groupings in declaration order', () => {
      const { def } = build();
      assert.deepEqual(
        def.components.map((c) => c.id),
        ['words', 'split', 'count', 'picked', 'everyone', 'gpu2'],
      );
      const inputs = Object.fromEntries(def.components.map((c) => [c.id, c.inputs]));
      assert.deepEqual(inputs['words'], []);
      assert.deepEqual(inputs['split'], [{ component: 'words', stream: 'lines', grouping: { type: 'shuffle' } }]);
      assert.deepEqual(inputs['count'], [{ component: 'split', stream: 'default', grouping: { type: 'fields', fields: ['word'] } }]);
      assert.deepEqual(inputs['picked'], [{ component: 'words', stream: 'pick', grouping: { type: 'direct' } }]);
      assert.deepEqual(inputs['everyone'], [
        { component: 'words', stream: 'default', grouping: { type: 'all' } },
        { component: 'split', stream: 'default', grouping: { type: 'global' } },
      ]);
      assert.deepEqual(inputs['gpu2'], [
        { component: 'words', stream: 'default', grouping: { type: 'fields', fields: ['count'] } },
        { component: 'split', stream: 'default', grouping: { type: 'localOrShuffle' } },
      ]);
    });

    it('with the load-based groupings, which pass the stored-definition schema', () => {
      const b = new TopologyBuilder();
      b.setSpout('words', () => new WordSpout());
      b.setBolt('a', () => new SinkBolt(), 3).twoChoiceGrouping('words');
      b.setBolt('b', () => new SinkBolt(), 2).loadAwareShuffleGrouping('words', 'lines');
      b.setBolt('c', () => new SinkBolt()).grouping('words', Grouping.twoChoice(), 'lines');
      const { def } = b.createTopology();
      const inputs = Object.fromEntries(def.components.map((c) => [c.id, c.inputs]));
      assert.deepEqual(inputs['a'], [{ component: 'words', stream: 'default', grouping: { type: 'twoChoice' } }]);
      assert.deepEqual(inputs['b'], [{ component: 'words', stream: 'lines', grouping: { type: 'loadAwareShuffle' } }]);
      assert.deepEqual(inputs['c'], [{ component: 'words', stream: 'lines', grouping: { type: 'twoChoice' } }]);
      assert.ok(topologyDefSchema.safeParse(JSON.parse(JSON.stringify(def))).success);
    });

    it('with the GPU marker, component config and topology config', () => {
      const t = build();
      const byId = new Map(t.def.components.map((c) => [c.id, c]));
      assert.deepEqual(byId.get('count')!.gpu, { memoryMB: 512 });
      assert.deepEqual(byId.get('gpu2')!.gpu, { memoryMB: 0 });
      assert.equal(byId.get('split')!.gpu, null);
      assert.deepEqual(byId.get('split')!.config, { 'my.split.key': 7 });
      assert.equal(t.def.config['topology.workers'], 3);
      assert.equal(t.def.config['wordcount.limit'], 10);
    });

    it('whose definition survives JSON and whose factories make fresh instances', () => {
      const t = build();
      assert.deepEqual(JSON.parse(JSON.stringify(t.def)), t.def);
      const f = t.factories.get('count')!;
      assert.notEqual(f(), f());
      assert.ok(f() instanceof SinkBolt);
      assert.deepEqual([...t.factories.keys()], ['words', 'split', 'count', 'picked', 'everyone', 'gpu2']);
    });

    it('that is not changed by later calls on the builder', () => {
      const b = withSpout();
      const decl = b.setBolt('sink', () => new SinkBolt()).shuffleGrouping('words');
      const t = b.createTopology();
      decl.allGrouping('words', 'lines');
      assert.equal(t.def.components.find((c) => c.id === 'sink')!.inputs.length, 1);
    });
  });

  describe('declares resources (HDRF)', () => {
    it('setCPULoad / setMemoryLoad / .gpu({ memoryMB }) land in the definition; toSchedTopology reads them per executor', () => {
      const b = withSpout();
      b.setBolt('heavy', () => new SinkBolt(), 2).shuffleGrouping('words').setCPULoad(150).setMemoryLoad(1024);
      b.setBolt('kernel', () => new SinkBolt(), 1).shuffleGrouping('words').gpu({ memoryMB: 4096 });
      b.setBolt('kernel2', () => new SinkBolt(), 1).shuffleGrouping('words').gpu();
      const t = b.createTopology({ 'topology.gpu.memory.mb': 1000, 'topology.acker.executors': 1 });
      const heavy = t.def.components.find((c) => c.id === 'heavy')!;
      assert.deepEqual(heavy.config, { 'topology.component.cpu.pcore.percent': 150, 'topology.component.resources.onheap.memory.mb': 1024 });
      const cfg = buildConfig([t.def.config], { allowUserKeys: true });
      const sched = toSchedTopology('t', t.def, cfg);
      const r = Object.fromEntries(sched.components.map((c) => [c.id, c.resources]));
      assert.deepEqual(r['heavy'], { cpu: 1.5, memoryMB: 1024, gpuMemoryMB: 0 });
      assert.deepEqual(r['kernel'], { cpu: 0.1, memoryMB: 128, gpuMemoryMB: 4096 });
      assert.deepEqual(r['kernel2'], { cpu: 0.1, memoryMB: 128, gpuMemoryMB: 1000 }, 'topology.gpu.memory.mb when .gpu() declares none');
      assert.deepEqual(r['__acker'], { cpu: 0.1, memoryMB: 128, gpuMemoryMB: 0 });
    });

    it('refuses a bad amount with the key or the component named', () => {
      const b = withSpout();
      const decl = b.setBolt('x', () => new SinkBolt()).shuffleGrouping('words');
      assert.throws(() => decl.setCPULoad(-5), (e: unknown) => e instanceof ConfigError && e.key === 'topology.component.cpu.pcore.percent');
      assert.throws(() => decl.setMemoryLoad(Number.NaN), (e: unknown) => e instanceof ConfigError && e.key === 'topology.component.resources.onheap.memory.mb');
      assert.throws(() => decl.gpu({ memoryMB: -1 }), invalid(['.gpu({ memoryMB }) must be a number of MB ≥ 0'], 'x'));
      decl.addConfiguration('topology.component.cpu.pcore.percent', 'lots');
      assert.throws(() => b.createTopology(), (e: unknown) => e instanceof ConfigError && /component "x" config|topology.component.cpu.pcore.percent/.test(e.message));
    });
  });
});
