/**
 * Every form of a Flux component (test/fixtures/flux/forms.yaml over
 * components.ts): constructorArgs with ref and reflist, a static factory with
 * factoryArgs, properties by setter, by field and by ref, configMethods,
 * per-component config over the class's getComponentConfiguration(), CPU and
 * memory loads, gpu, the default export, and every grouping type,
 * each turned into what the TopologyBuilder call would give.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ComponentDef } from '../../../common/topology-def.js';
import { buildFlux, FIXTURES } from './flux-helpers.js';

interface FormsSpout {
  greetings: { text: string }[];
  words: string[];
  prefixSetBy: string;
  greeting: { text: string } | null;
  salutations: { prefix: string; all: { text: string }[] } | null;
  calls: string[];
}

describe('flux: the forms of a component', () => {
  const load = () => buildFlux(join(FIXTURES, 'forms.yaml'), { filter: join(FIXTURES, 'forms.properties') });
  const comp = (components: ComponentDef[], id: string) => components.find((c) => c.id === id)!;

  it('builds the topology a TopologyBuilder would: parallelism, config, loads, gpu, streams and groupings', async () => {
    const { topology } = await load();
    const { def } = topology;
    assert.deepEqual(def.config, { 'topology.workers': 1, 'forms.greeting': 'hi there' });
    assert.deepEqual(
      def.components.map((c) => [c.id, c.kind, c.parallelism]),
      [
        ['words', 'spout', 2],
        ['echo', 'bolt', 3],
        ['gpu-echo', 'bolt', 1],
        // numTasks: a task per executor here (setNumTasks).
        ['sink', 'bolt', 2],
      ],
    );
    // The Flux file's config wins over getComponentConfiguration(); on- and off-heap memory add up.
    assert.deepEqual(comp(def.components, 'echo').config, {
      'echo.mode': 'flux',
      'echo.kept': 1,
      'topology.component.cpu.pcore.percent': 50,
      'topology.component.resources.onheap.memory.mb': 384,
    });
    assert.deepEqual(comp(def.components, 'gpu-echo').gpu, { memoryMB: 512 });
    assert.equal(comp(def.components, 'echo').gpu, null);
    assert.deepEqual(comp(def.components, 'echo').inputs, [{ component: 'words', stream: 'default', grouping: { type: 'fields', fields: ['word'] } }]);
    assert.deepEqual(comp(def.components, 'gpu-echo').inputs, [
      { component: 'words', stream: 'other', grouping: { type: 'localOrShuffle' } },
      { component: 'echo', stream: 'default', grouping: { type: 'global' } },
    ]);
    assert.deepEqual(comp(def.components, 'sink').inputs, [
      { component: 'echo', stream: 'default', grouping: { type: 'none' } },
      { component: 'gpu-echo', stream: 'default', grouping: { type: 'twoChoice' } },
      { component: 'words', stream: 'other', grouping: { type: 'loadAwareShuffle' } },
      { component: 'words', stream: 'default', grouping: { type: 'custom', name: 'FirstTaskGrouping' } },
    ]);
    assert.equal(topology.customGrouping('sink', 'words', 'default')?.constructor.name, 'FirstTaskGrouping', 'the grouping object is handed to the builder');
  });

  it("registers topology.kryo.register's classes (registerSerialization), with the serializer the entry names, and keeps the key out of config", async () => {
    const { topology, compiled } = await load();
    assert.deepEqual(topology.def.serializations, ['Salutations', 'Greeting']);
    assert.equal(topology.def.config['topology.kryo.register'], undefined);
    const [salutations, greeting] = topology.serializations;
    assert.equal(salutations!.serializer, null, 'a className alone: the instance travels as its fields');
    assert.equal(greeting!.serializer!.constructor.name, 'GreetingSerializer');
    const round = greeting!.serializer!.read(greeting!.serializer!.write(new (greeting!.Class as new (t: string) => { text: string })('hi'))) as { text: string };
    assert.ok(round instanceof (greeting!.Class as new (...a: never[]) => unknown));
    assert.equal(round.text, 'hi');
    assert.deepEqual(
      compiled.plan.serializations.map((r) => [r.className.spec, r.serializer?.spec ?? null, r.key]),
      [
        ['./components.js#Salutations', null, 'config.topology.kryo.register[0]'],
        ['./components.js#Greeting', './components.js#GreetingSerializer', 'config.topology.kryo.register[1]'],
      ],
    );
  });

  it('makes each object as the file says: refs, reflist, factory, setter, field, config methods, variables', async () => {
    const { topology } = await load();
    const spout = topology.factories.get('words')!() as unknown as FormsSpout;
    assert.deepEqual(
      spout.greetings.map((g) => g.text),
      ['hello', 'bye', 'hello'],
    );
    assert.equal(spout.greetings[0], spout.greetings[2], 'a component referred to twice is one object within a task');
    assert.deepEqual(spout.words, ['alpha', 'beta', 'gamma'], 'a list value of the --filter file is a YAML list');
    assert.equal(spout.prefixSetBy, 'setter', 'a property with a setPrefix method goes through it');
    assert.equal(spout.greeting?.text, 'bye');
    assert.deepEqual(spout.calls, ['withGreeting(bye, 2)']);
    assert.equal(spout.salutations?.prefix, '> ');
    assert.deepEqual(
      spout.salutations?.all.map((g) => g.text),
      ['hello', 'bye'],
    );
    assert.equal(spout.salutations?.all[0], spout.greetings[0], 'a ref from a component and from the spout is the same object within a task');
    const other = topology.factories.get('words')!() as unknown as FormsSpout;
    assert.notEqual(other.greetings[0], spout.greetings[0], 'each task makes its own objects, as Storm deserializes a copy per task');
    const echo = topology.factories.get('echo')!() as unknown as { options: { upper?: boolean } };
    assert.deepEqual(echo.options, { upper: true }, 'a map argument is passed as an object');
    assert.equal((topology.factories.get('sink')!() as object).constructor.name, 'SinkBolt', 'a module path without #export names its default export');
  });

  it('prints the module it generates with the plan inside, and names the modules it imports', async () => {
    const { compiled } = await load();
    assert.equal(compiled.name, 'flux-forms');
    assert.equal(compiled.modules.length, 1);
    assert.match(compiled.modules[0]!, /dist\/test\/fixtures\/flux\/components\.js$/, 'a source of this package is taken from its compiled twin');
    assert.match(compiled.entry.contents, /import \* as m0 from ".*components\.js";/);
    assert.match(compiled.entry.contents, /export default \(\) => buildFluxTopology\(plan, \[m0\]\);/);
  });
});
