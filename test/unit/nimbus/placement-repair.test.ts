/**
 * A topology that loses one node keeps its workers on the other nodes exactly
 * as they were (nimbus/placement.ts): only the lost executors are placed
 * again, so no healthy worker is restarted (its executors, and so the
 * supervisor's signature of it, do not change).
 */
import assert from 'node:assert/strict';
import { workerKey, type Assignment } from '../../../common/assignment.js';
import { buildConfig } from '../../../common/config/index.js';
import type { SupervisorInfo } from '../../../common/resources.js';
import type { StormBase } from '../../../common/storm-base.js';
import type { ComponentDef, TopologyDef } from '../../../common/topology-def.js';
import { planPlacement, type PlacementInput } from '../../../nimbus/placement.js';
import type { SchedulerStrategy } from '../../../nimbus/scheduler/types.js';

function supervisor(id: string, ports: number[]): SupervisorInfo {
  return { id, host: '127.0.0.1', ports, memoryMB: 16384, cpus: 8, gpus: [], startedAt: 0, heartbeatAt: 0, version: 1 };
}

function comp(id: string, inputs: string[], parallelism: number): ComponentDef {
  return {
    id,
    kind: inputs.length ? 'bolt' : 'spout',
    parallelism,
    streams: [{ id: 'default', fields: ['x'], direct: false }],
    inputs: inputs.map((c) => ({ component: c, stream: 'default', grouping: { type: 'shuffle' } })),
    gpu: null,
    config: {},
  };
}

function storm(id: string, strategy: SchedulerStrategy): StormBase {
  const def: TopologyDef = { components: [comp('spout', [], 4), comp('count', ['spout'], 4), comp('sink', ['count'], 4)], config: {} };
  const config = buildConfig([{ 'nimbus.scheduler': strategy, 'topology.workers': 4 }], { allowUserKeys: true });
  return { version: 1, id, name: id, status: 'active', launchTime: 1000, def, config: { ...config }, code: { kind: 'path', path: '/x.js' } };
}

function input(strategy: SchedulerStrategy, over: Partial<PlacementInput>): PlacementInput {
  return {
    supervisors: new Map(),
    storms: new Map(),
    assignments: new Map(),
    badSlots: new Set(),
    deadWorkers: new Map(),
    forced: new Set(),
    strategy,
    fairness: null,
    gpuFallbackToCpu: false,
    now: 10_000,
    ...over,
  };
}

const signature = (w: Assignment['workers'][number]) => `${workerKey(w)}=${w.executors.map((e) => e.task).sort((a, b) => a - b).join(',')}`;

for (const strategy of ['even', 'hetero'] as const) {
  describe(`nimbus placement after a lost node (${strategy})`, () => {
    function placedOnThreeNodes() {
      const sups = new Map([
        ['a', supervisor('a', [1, 2])],
        ['b', supervisor('b', [1, 2])],
        ['c', supervisor('c', [1, 2])],
      ]);
      const t = storm('t', strategy);
      const storms = new Map([['t', t]]);
      const [first] = planPlacement(input(strategy, { supervisors: sups, storms }));
      assert.ok(first);
      const assignments = new Map([['t', first.assignment]]);
      return { sups, storms, assignments, before: first.assignment };
    }

    it('moves only the executors of the lost node; every other worker keeps its slot and executors', () => {
      const { sups, storms, assignments, before } = placedOnThreeNodes();
      assert.equal(before.workers.length, 4);
      const lost = before.workers[0]!.supervisorId;
      sups.delete(lost);
      const [change] = planPlacement(input(strategy, { supervisors: sups, storms, assignments, now: 20_000 }));
      assert.ok(change, 'the topology is repaired');
      const after = change.assignment;
      const survivors = before.workers.filter((w) => w.supervisorId !== lost);
      assert.ok(survivors.length > 0 && survivors.length < before.workers.length);
      const afterSigs = new Set(after.workers.map(signature));
      for (const w of survivors) assert.ok(afterSigs.has(signature(w)), `healthy worker ${workerKey(w)} untouched`);
      assert.equal(after.unassigned.length, 0);
      const tasks = after.workers.flatMap((w) => w.executors.map((e) => e.task)).sort((x, y) => x - y);
      const all = before.workers.flatMap((w) => w.executors.map((e) => e.task)).sort((x, y) => x - y);
      assert.deepEqual(tasks, all, 'every executor placed exactly once');
      assert.ok(after.workers.every((w) => w.supervisorId !== lost));
      assert.equal(after.workers.length, 4);
    });

    it('moves only the dead worker when one worker stopped heartbeating', () => {
      const { sups, storms, assignments, before } = placedOnThreeNodes();
      const dead = before.workers[1]!;
      const [change] = planPlacement(
        input(strategy, { supervisors: sups, storms, assignments, deadWorkers: new Map([['t', new Set([workerKey(dead)])]]), badSlots: new Set([workerKey(dead)]), now: 20_000 }),
      );
      assert.ok(change);
      const afterSigs = new Set(change.assignment.workers.map(signature));
      for (const w of before.workers) if (w !== dead) assert.ok(afterSigs.has(signature(w)), `healthy worker ${workerKey(w)} untouched`);
      assert.ok(!change.assignment.workers.some((w) => workerKey(w) === workerKey(dead)), 'not on the bad slot');
    });
  });
}

describe('nimbus supervisor grace', () => {
  it('keeps a vanished supervisor for the grace period, then drops it; one that is back is simply current', async () => {
    const { SupervisorGrace } = await import('../../../nimbus/supervisor-grace.js');
    const grace = new SupervisorGrace(2000);
    const a = supervisor('a', [1]);
    const b = supervisor('b', [1]);
    assert.deepEqual([...grace.apply(new Map([['a', a], ['b', b]]), 0).keys()], ['a', 'b']);
    assert.deepEqual([...grace.apply(new Map([['a', a]]), 100).keys()], ['a', 'b'], 'b just vanished: still there');
    assert.equal(grace.nextExpiry(), 2100, 'nimbus looks again when the grace ends');
    assert.deepEqual([...grace.apply(new Map([['a', a]]), 2099).keys()], ['a', 'b']);
    assert.deepEqual([...grace.apply(new Map([['a', a]]), 2100).keys()], ['a'], 'gone for the grace: gone');
    assert.deepEqual([...grace.apply(new Map([['a', a]]), 2200).keys()], ['a']);
    assert.equal(grace.nextExpiry(), null);
    // Vanishes and comes back within the grace: never missing; a later vanish starts a fresh grace.
    assert.deepEqual([...grace.apply(new Map([['b', b]]), 3000).keys()].sort(), ['a', 'b']);
    assert.deepEqual([...grace.apply(new Map([['a', a], ['b', b]]), 3500).keys()], ['a', 'b']);
    assert.deepEqual([...grace.apply(new Map([['b', b]]), 6000).keys()].sort(), ['a', 'b']);
  });
});
