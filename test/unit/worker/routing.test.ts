import assert from 'node:assert/strict';
import { OutputRouter, type RoutingTopology } from '../../../worker/routing/output-router.js';
import { NO_LOAD, type LoadView } from '../../../worker/routing/load/task-load.js';
import { computeTasks, type ComponentDef, type GroupingDef, type TopologyDef } from '../../../common/topology-def.js';
import { seededRandom } from '../../../common/seeded-random.js';

function bolt(id: string, parallelism: number, grouping: GroupingDef, stream = 'default'): ComponentDef {
  return { id, kind: 'bolt', parallelism, streams: [], inputs: [{ component: 'src', stream, grouping }], gpu: null, config: {} };
}

/**
 * One spout "src" (default stream [word, n], direct stream "d") feeding one bolt
 * per grouping. `local` says which tasks live in the emitting worker.
 */
function topology(bolts: ComponentDef[], local: (task: number) => boolean = () => true): RoutingTopology {
  const def: TopologyDef = {
    components: [
      {
        id: 'src',
        kind: 'spout',
        parallelism: 1,
        streams: [
          { id: 'default', fields: ['word', 'n'], direct: false },
          { id: 'd', fields: ['x'], direct: true },
        ],
        inputs: [],
        gpu: null,
        config: {},
      },
      ...bolts,
    ],
    config: {},
  };
  const tasks = computeTasks(def, 1);
  return {
    def,
    // Reversed on purpose: the router must not rely on the order it is handed.
    tasksOf: (c) => tasks.filter((t) => t.component === c).map((t) => t.task).reverse(),
    isLocal: local,
    isPlaced: () => true,
  };
}

function tasksOf(topo: RoutingTopology, c: string): number[] {
  return [...topo.tasksOf(c)].sort((a, b) => a - b);
}

describe('worker/routing OutputRouter', () => {
  it('fields grouping sends equal keys to the same task and spreads distinct keys', () => {
    const topo = topology([bolt('count', 4, { type: 'fields', fields: ['word'] })]);
    const router = new OutputRouter('src', topo);
    const seen = new Map<string, number>();
    const used = new Set<number>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) {
        const word = `w${i}`;
        const targets = router.route('default', [word, round * 1000 + i]);
        assert.equal(targets.length, 1);
        const t = targets[0]!;
        const before = seen.get(word);
        if (before !== undefined) assert.equal(t, before, `key ${word} moved from task ${before} to ${t}`);
        seen.set(word, t);
        used.add(t);
      }
    }
    assert.deepEqual([...used].sort((a, b) => a - b), tasksOf(topo, 'count'), 'every task gets some keys');
  });

  it('fields grouping is the same in another router (another worker process)', () => {
    const topo = topology([bolt('count', 5, { type: 'fields', fields: ['word', 'n'] })]);
    const a = new OutputRouter('src', topo, seededRandom(1));
    const b = new OutputRouter('src', topo, seededRandom(2));
    for (let i = 0; i < 100; i++) assert.deepEqual(a.route('default', ['k', i]), b.route('default', ['k', i]));
  });

  it('shuffle spreads evenly (±10 %) over 10 000 tuples', () => {
    const topo = topology([bolt('work', 4, { type: 'shuffle' })]);
    const router = new OutputRouter('src', topo, seededRandom(42));
    const counts = new Map<number, number>();
    for (let i = 0; i < 10_000; i++) {
      const [t] = router.route('default', ['x', i]);
      counts.set(t!, (counts.get(t!) ?? 0) + 1);
    }
    assert.deepEqual([...counts.keys()].sort((a, b) => a - b), tasksOf(topo, 'work'));
    for (const [task, n] of counts) assert.ok(Math.abs(n - 2500) <= 250, `task ${task} got ${n} of 10000`);
  });

  it('all grouping sends every tuple to every task', () => {
    const topo = topology([bolt('bcast', 3, { type: 'all' })]);
    const router = new OutputRouter('src', topo);
    assert.deepEqual(router.route('default', ['a', 1]).sort((a, b) => a - b), tasksOf(topo, 'bcast'));
  });

  it('global grouping sends every tuple to the lowest task', () => {
    const topo = topology([bolt('sink', 3, { type: 'global' })]);
    const router = new OutputRouter('src', topo, seededRandom(7));
    const lowest = Math.min(...topo.tasksOf('sink'));
    for (let i = 0; i < 20; i++) assert.deepEqual(router.route('default', [`w${i}`, i]), [lowest]);
  });

  it('localOrShuffle prefers tasks in this worker, and falls back to all tasks when none is local', () => {
    const probe = topology([bolt('l', 4, { type: 'localOrShuffle' })]);
    const [t0, t1, t2, t3] = tasksOf(probe, 'l');
    const localSet = new Set([t1!, t3!]);
    const topo = topology([bolt('l', 4, { type: 'localOrShuffle' })], (t) => localSet.has(t));
    const router = new OutputRouter('src', topo, seededRandom(3));
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(router.route('default', ['x', i])[0]!);
    assert.deepEqual([...seen].sort((a, b) => a - b), [t1, t3]);
    assert.ok(!seen.has(t0!) && !seen.has(t2!));

    const remote = topology([bolt('l', 4, { type: 'localOrShuffle' })], () => false);
    const r2 = new OutputRouter('src', remote, seededRandom(3));
    const all = new Set<number>();
    for (let i = 0; i < 200; i++) all.add(r2.route('default', ['x', i])[0]!);
    assert.deepEqual([...all].sort((a, b) => a - b), tasksOf(remote, 'l'));
  });

  it('direct subscribers get nothing from route(); checkDirect admits only them', () => {
    const topo = topology([bolt('dir', 2, { type: 'direct' }, 'd'), bolt('other', 2, { type: 'shuffle' })]);
    const router = new OutputRouter('src', topo);
    assert.deepEqual(router.route('d', [1]), []);
    for (const t of topo.tasksOf('dir')) assert.doesNotThrow(() => router.checkDirect('d', t));
    const outsider = topo.tasksOf('other')[0]!;
    assert.throws(() => router.checkDirect('d', outsider), (e: Error) => e.message.includes(`task ${outsider}`) && e.message.includes('direct'));
    // A direct subscriber of stream "d" is not one of the default stream.
    assert.throws(() => router.checkDirect('default', topo.tasksOf('dir')[0]!), /direct grouping/);
    assert.throws(() => router.checkDirect('nope', topo.tasksOf('dir')[0]!), /undeclared stream "nope"/);
  });

  it('emitting on an undeclared stream throws, naming the stream', () => {
    const topo = topology([bolt('work', 2, { type: 'shuffle' })]);
    const router = new OutputRouter('src', topo);
    assert.equal(router.hasStream('default'), true);
    assert.equal(router.hasStream('missing'), false);
    assert.throws(() => router.route('missing', [1]), /undeclared stream "missing"/);
    // The author's mistake, with its own code (not HSTORM_ERR_INTERNAL), naming component and stream.
    assert.throws(() => router.route('missing', [1]), { code: 'HSTORM_ERR_TOPOLOGY_EMIT', component: 'src', stream: 'missing' });
  });

  it('emitting a number of values other than the stream declares is an EmitError naming the fields', () => {
    const topo = topology([bolt('work', 2, { type: 'shuffle' }), bolt('c', 1, { type: 'direct' }, 'd')]);
    const router = new OutputRouter('src', topo);
    assert.throws(() => router.route('default', ['only-one']), (e: Error & { code?: string }) => e.code === 'HSTORM_ERR_TOPOLOGY_EMIT' && /emitted 1 value\(s\) on stream "default", which declares 2 field\(s\) \(word, n\)/.test(e.message));
    assert.throws(() => router.targets('d', [1, 2], tasksOf(topo, 'c')[0]!), { code: 'HSTORM_ERR_TOPOLOGY_EMIT' });
    assert.equal(router.route('default', ['w', 1]).length, 1);
  });

  it('one tuple reaches every subscribing component, and allTargets lists every reachable task', () => {
    const topo = topology([bolt('a', 2, { type: 'shuffle' }), bolt('b', 3, { type: 'all' }), bolt('c', 2, { type: 'direct' }, 'd')]);
    const router = new OutputRouter('src', topo, seededRandom(9));
    const targets = router.route('default', ['w', 1]);
    assert.equal(targets.length, 1 + 3);
    assert.deepEqual(
      router.allTargets().sort((x, y) => x - y),
      [...tasksOf(topo, 'a'), ...tasksOf(topo, 'b'), ...tasksOf(topo, 'c')].sort((x, y) => x - y),
    );
  });

  it('an unknown emitting component is a TopologyValidationError', () => {
    const topo = topology([]);
    assert.throws(() => new OutputRouter('ghost', topo), { code: 'HSTORM_ERR_TOPOLOGY_INVALID' });
  });
  it('twoChoice routes by the host\'s load view: a task with a long wait gets nothing, and every pick is noted', () => {
    const probe = topology([bolt('w', 4, { type: 'twoChoice' })]);
    const [slow, ...fast] = tasksOf(probe, 'w');
    const sent: number[] = [];
    const view: LoadView = { waitMs: (t) => (t === slow ? 100 : 1), loadFraction: () => null, noteSent: (t) => sent.push(t) };
    const topo = { ...probe, routingLoad: { view, clock: () => 0, refreshMs: 100, higherBound: 0.8, lowerBound: 0.2 } };
    const router = new OutputRouter('src', topo, seededRandom(5));
    const counts = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const [t] = router.route('default', ['x', i]);
      counts.set(t!, (counts.get(t!) ?? 0) + 1);
    }
    assert.equal(counts.get(slow!) ?? 0, 0);
    for (const t of fast) assert.ok((counts.get(t) ?? 0) > 800, `fast task ${t} got ${counts.get(t)}`);
    assert.equal(sent.length, 3000);
  });

  it('twoChoice and loadAwareShuffle without a load signal spread over every task', () => {
    for (const type of ['twoChoice', 'loadAwareShuffle'] as const) {
      const topo = { ...topology([bolt('w', 3, { type })]), routingLoad: null };
      const router = new OutputRouter('src', topo, seededRandom(9));
      const seen = new Set<number>();
      for (let i = 0; i < 300; i++) seen.add(router.route('default', ['x', i])[0]!);
      assert.deepEqual([...seen].sort((a, b) => a - b), tasksOf(topo, 'w'), type);
    }
    assert.equal(NO_LOAD.waitMs(1), null);
  });
});

describe('worker/routing OutputRouter follows the assignment', () => {
  /** The topology with only the tasks `placed` says run (updatePlacement re-reads it). */
  function placedTopology(bolts: ComponentDef[], placed: Set<number>): RoutingTopology {
    return { ...topology(bolts), isPlaced: (t) => placed.has(t) };
  }

  it('deals a shuffle among the running tasks only, and again among all once they run', () => {
    const bolts = [bolt('work', 4, { type: 'shuffle' })];
    const all = tasksOf(topology(bolts), 'work');
    const placed = new Set([...all.slice(0, 2), 1]);
    const router = new OutputRouter('src', placedTopology(bolts, placed), seededRandom(7));
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) for (const t of router.route('default', ['w', i])) seen.add(t);
    assert.equal(router.unplaced, null, 'a shuffle with a running task reaches the subscriber');
    assert.deepEqual([...seen].sort((a, b) => a - b), all.slice(0, 2));
    for (const t of all) placed.add(t);
    router.updatePlacement();
    for (let i = 0; i < 400; i++) for (const t of router.route('default', ['w', i])) seen.add(t);
    assert.deepEqual([...seen].sort((a, b) => a - b), all);
  });

  it('names a subscriber with no running task, and one whose keyed task does not run', () => {
    const bolts = [bolt('gone', 2, { type: 'shuffle' }), bolt('count', 2, { type: 'fields', fields: ['word'] })];
    const topo0 = topology(bolts);
    const [count1, count2] = tasksOf(topo0, 'count');
    const placed = new Set([count1!]);
    const router = new OutputRouter('src', placedTopology(bolts, placed));
    const byKey = new OutputRouter('src', topo0);
    let reachedCount = 0;
    for (let i = 0; i < 50; i++) {
      const word = `w${i}`;
      const targets = router.route('default', [word, 1]);
      assert.ok(router.unplaced === 'gone' || router.unplaced === 'count', `unplaced: ${router.unplaced}`);
      const keyed = byKey.route('default', [word, 1]).find((t) => tasksOf(topo0, 'count').includes(t));
      // A key owned by the running count task still reaches it; one owned by count2 is left out, never moved.
      assert.equal(targets.includes(count1!), keyed === count1);
      assert.ok(!targets.includes(count2!));
      if (keyed === count1) reachedCount++;
    }
    assert.ok(reachedCount > 0);
    placed.add(count2!);
    for (const t of tasksOf(topo0, 'gone')) placed.add(t);
    router.updatePlacement();
    router.route('default', ['w1', 1]);
    assert.equal(router.unplaced, null);
  });

  it('marks an emitDirect to a task no worker runs', () => {
    const bolts = [bolt('pick', 2, { type: 'direct' }, 'd')];
    const [p1, p2] = tasksOf(topology(bolts), 'pick');
    const router = new OutputRouter('src', placedTopology(bolts, new Set([p1!])));
    assert.deepEqual(router.targets('d', [1], p1!), [p1]);
    assert.equal(router.unplaced, null);
    assert.deepEqual(router.targets('d', [1], p2!), []);
    assert.equal(router.unplaced, 'pick');
  });
});
