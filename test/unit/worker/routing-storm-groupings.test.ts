/** The groupings with Storm's names routed by OutputRouter: none, partialKey and a user's custom grouping. */
import assert from 'node:assert/strict';
import { OutputRouter, type RoutingTopology } from '../../../worker/routing/output-router.js';
import type { LoadView } from '../../../worker/routing/load/task-load.js';
import { computeTasks, type ComponentDef, type GroupingDef, type TopologyDef } from '../../../common/topology-def.js';
import { seededRandom } from '../../../common/seeded-random.js';
import type { CustomStreamGrouping } from '../../../topology-sdk/custom-grouping.js';
import type { GlobalStreamId } from '../../../common/topology-def.js';
import type { TopologyContext } from '../../../topology-sdk/context.js';
import { fakeContext } from '../../helpers/fake-context.js';

function bolt(id: string, parallelism: number, grouping: GroupingDef): ComponentDef {
  return { id, kind: 'bolt', parallelism, streams: [], inputs: [{ component: 'src', stream: 'default', grouping }], gpu: null, config: {} };
}

function topology(bolts: ComponentDef[], extra: Partial<RoutingTopology> = {}): RoutingTopology {
  const def: TopologyDef = {
    components: [{ id: 'src', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['word', 'n'], direct: false }], inputs: [], gpu: null, config: {} }, ...bolts],
    config: {},
  };
  const tasks = computeTasks(def, 1);
  return { def, tasksOf: (c) => tasks.filter((t) => t.component === c).map((t) => t.task), isLocal: () => true, isPlaced: () => true, ...extra };
}

const tasksOf = (topo: RoutingTopology, c: string) => [...topo.tasksOf(c)];

describe('worker/routing: noneGrouping', () => {
  it('is a shuffle: spread evenly over every running task', () => {
    const topo = topology([bolt('w', 4, { type: 'none' })]);
    const router = new OutputRouter('src', topo, seededRandom(3));
    const counts = new Map<number, number>();
    for (let i = 0; i < 4000; i++) {
      const [t] = router.route('default', ['x', i]);
      counts.set(t!, (counts.get(t!) ?? 0) + 1);
    }
    for (const t of tasksOf(topo, 'w')) assert.equal(counts.get(t), 1000, `task ${t}`);
  });
});

describe('worker/routing: partialKeyGrouping', () => {
  it('sends each key to at most two tasks and, without load figures, balances what this emitter sent', () => {
    const topo = topology([bolt('w', 8, { type: 'partialKey', fields: ['word'] })]);
    const router = new OutputRouter('src', topo);
    const perKey = new Map<string, Set<number>>();
    const perTask = new Map<number, number>();
    // Skewed keys: k0 is half the stream, the rest share the other half.
    for (let i = 0; i < 4000; i++) {
      const word = i % 2 === 0 ? 'k0' : `k${1 + (i % 39)}`;
      const [t] = router.route('default', [word, i]);
      perKey.set(word, (perKey.get(word) ?? new Set()).add(t!));
      perTask.set(t!, (perTask.get(t!) ?? 0) + 1);
    }
    for (const [word, set] of perKey) assert.ok(set.size <= 2, `key ${word} went to ${set.size} tasks`);
    assert.equal(perKey.get('k0')!.size, 2, 'the hot key is split over its two candidates');
    // A fields grouping would put 2000+ tuples on k0's task; here no task holds much more than the hot key's half of it.
    assert.ok(Math.max(...perTask.values()) < 1300, `busiest task got ${Math.max(...perTask.values())}`);
  });

  it('gives keys two distinct candidates almost always (independent hashes)', () => {
    const topo = topology([bolt('w', 8, { type: 'partialKey', fields: ['word'] })]);
    let distinct = 0;
    for (let i = 0; i < 200; i++) {
      const router = new OutputRouter('src', topo);
      if (router.route('default', [`k${i}`, 0])[0] !== router.route('default', [`k${i}`, 0])[0]) distinct++;
    }
    // Two independent uniform picks among 8 coincide 1/8 of the time.
    assert.ok(distinct > 150 && distinct < 200, `${distinct} of 200 keys had two candidates`);
  });

  it('another router (another worker) gives a key the same two candidates', () => {
    const topo = topology([bolt('w', 8, { type: 'partialKey', fields: ['word'] })]);
    const a = new OutputRouter('src', topo);
    const b = new OutputRouter('src', topo);
    for (let i = 0; i < 50; i++) {
      const seenA = new Set([a.route('default', [`k${i}`, 0])[0], a.route('default', [`k${i}`, 0])[0]]);
      const seenB = new Set([b.route('default', [`k${i}`, 0])[0], b.route('default', [`k${i}`, 0])[0]]);
      assert.deepEqual([...seenA].sort(), [...seenB].sort());
    }
  });

  it('follows the load signal: the candidate with the shorter wait gets the tuples, and each pick is noted', () => {
    const probe = topology([bolt('w', 8, { type: 'partialKey', fields: ['word'] })]);
    const noLoad = new OutputRouter('src', probe);
    const cands = new Set([noLoad.route('default', ['hot', 0])[0]!, noLoad.route('default', ['hot', 0])[0]!]);
    assert.equal(cands.size, 2, 'the key "hot" has two distinct candidates');
    const [slow, fast] = [...cands];
    const noted: number[] = [];
    const view: LoadView = { waitMs: (t) => (t === slow ? 50 : 2), loadFraction: () => null, noteSent: (t) => noted.push(t) };
    const router = new OutputRouter('src', { ...probe, routingLoad: { view, clock: () => 0, refreshMs: 100, higherBound: 0.8, lowerBound: 0.2 } });
    for (let i = 0; i < 100; i++) assert.deepEqual(router.route('default', ['hot', i]), [fast]);
    assert.equal(noted.length, 100);
  });

  it('picks the running candidate when the other does not run, and marks the subscriber when neither runs', () => {
    const probe = topology([bolt('w', 8, { type: 'partialKey', fields: ['word'] })]);
    const noLoad = new OutputRouter('src', probe);
    const [a, b] = [noLoad.route('default', ['hot', 0])[0]!, noLoad.route('default', ['hot', 0])[0]!];
    const placed = new Set(tasksOf(probe, 'w').filter((t) => t !== a));
    const router = new OutputRouter('src', { ...probe, isPlaced: (t) => placed.has(t) });
    for (let i = 0; i < 20; i++) assert.deepEqual(router.route('default', ['hot', i]), [b]);
    assert.equal(router.unplaced, null);
    placed.delete(b);
    router.updatePlacement();
    assert.deepEqual(router.route('default', ['hot', 1]), []);
    assert.equal(router.unplaced, 'w');
  });
});

describe('worker/routing: customGrouping', () => {
  class ByLength implements CustomStreamGrouping {
    prepared: { stream: GlobalStreamId; targets: readonly number[]; task: number } | null = null;
    calls: number[] = [];
    targets: readonly number[] = [];
    prepare(ctx: TopologyContext, stream: GlobalStreamId, targets: readonly number[]): void {
      this.prepared = { stream, targets, task: ctx.getThisTaskId() };
      this.targets = targets;
    }
    chooseTasks(taskId: number, values: readonly unknown[]): readonly number[] {
      this.calls.push(taskId);
      return [this.targets[String(values[0]).length % this.targets.length]!];
    }
  }

  function custom(grouping: CustomStreamGrouping, placed?: Set<number>): RoutingTopology {
    return topology([bolt('w', 3, { type: 'custom', name: 'ByLength' })], {
      customGrouping: (subscriber, source, stream) => (subscriber === 'w' && source === 'src' && stream === 'default' ? grouping : undefined),
      contextFor: (component, task) => fakeContext({ component, taskId: task }),
      ...(placed && { isPlaced: (t: number) => placed.has(t) }),
    });
  }

  it('is prepared with the emitting task\'s context, the stream and every target task, and told the emitting task', () => {
    const g = new ByLength();
    const topo = custom(g);
    const router = new OutputRouter('src', topo, Math.random, 1);
    const w = tasksOf(topo, 'w');
    assert.deepEqual(g.prepared, { stream: { componentId: 'src', streamId: 'default' }, targets: w, task: 1 });
    assert.deepEqual(router.route('default', ['ab', 0]), [w[2]]);
    assert.deepEqual(router.route('default', ['abc', 0]), [w[0]]);
    assert.deepEqual(g.calls, [1, 1]);
  });

  it('a choice outside the target tasks, or not an array, is an EmitError naming the grouping', () => {
    const bad: CustomStreamGrouping = { prepare: () => undefined, chooseTasks: () => [99] };
    const router = new OutputRouter('src', custom(bad), Math.random, 1);
    assert.throws(() => router.route('default', ['x', 0]), (e: unknown) => (e as { code?: string }).code === 'HSTORM_ERR_TOPOLOGY_EMIT' && /custom grouping of "w" on stream "default" of "src" chose task 99, which is not one of its target tasks/.test((e as Error).message));
    const notArray = { prepare: () => undefined, chooseTasks: () => 3 } as unknown as CustomStreamGrouping;
    assert.throws(() => new OutputRouter('src', custom(notArray)).route('default', ['x', 0]), /returned number, not an array of task ids/);
  });

  it('a chosen task that no worker runs is left out and the subscriber marked, as for fields grouping', () => {
    const g = new ByLength();
    const probe = custom(g);
    const w = tasksOf(probe, 'w');
    const placed = new Set([1, w[0]!, w[1]!]);
    const router = new OutputRouter('src', custom(g, placed), Math.random, 1);
    assert.deepEqual(router.route('default', ['abc', 0]), [w[0]]);
    assert.equal(router.unplaced, null);
    assert.deepEqual(router.route('default', ['ab', 0]), []);
    assert.equal(router.unplaced, 'w');
  });
});
