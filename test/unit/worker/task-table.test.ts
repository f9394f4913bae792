import assert from 'node:assert/strict';
import { TaskTable } from '../../../worker/task-table.js';
import { idBucket, randomHalf } from '../../../worker/acking/ack-ids.js';
import { EmitError } from '../../../common/errors.js';
import { ACKER_COMPONENT, computeTasks, type TopologyDef } from '../../../common/topology-def.js';
import type { Assignment, WorkerAssignment } from '../../../common/assignment.js';

const DEF: TopologyDef = {
  components: [
    { id: 'src', kind: 'spout', parallelism: 2, streams: [{ id: 'default', fields: ['n'], direct: false }, { id: 'side', fields: ['a', 'b'], direct: false }], inputs: [], gpu: null, config: {} },
    { id: 'sink', kind: 'bolt', parallelism: 3, streams: [], inputs: [{ component: 'src', stream: 'default', grouping: { type: 'shuffle' } }], gpu: null, config: {} },
  ],
  config: {},
};

function worker(supervisorId: string, port: number, tasks: number[]): WorkerAssignment {
  const all = computeTasks(DEF, 2);
  return { supervisorId, host: `${supervisorId}.local`, port, gpu: null, reason: 'test', executors: tasks.map((task) => ({ component: all.find((t) => t.task === task)!.component, task })) };
}

function assignment(epoch: number, workers: WorkerAssignment[]): Assignment {
  return { topologyId: 't-1', epoch, workers, unassigned: [], scheduler: 'even', createdAt: 0 };
}

describe('worker/task-table', () => {
  const tasks = computeTasks(DEF, 2);
  const of = (c: string) => tasks.filter((t) => t.component === c).map((t) => t.task);

  it('knows which component each task runs and the tasks of each component, ackers included', () => {
    const table = new TaskTable(DEF, 2, 'a:1');
    assert.deepEqual(table.tasksOf('src'), of('src'));
    assert.deepEqual(table.tasksOf('sink'), of('sink'));
    assert.equal(table.tasksOf(ACKER_COMPONENT).length, 2);
    for (const t of tasks) assert.equal(table.componentOf(t.task), t.component);
    assert.equal(table.componentOf(99_999), undefined);
    assert.deepEqual(table.tasksOf('nope'), []);
  });

  it('picks the acker of a root from the root alone (its low half), as every task does; none with acking off', () => {
    const table = new TaskTable(DEF, 2, 'a:1');
    const ackers = table.tasksOf(ACKER_COMPONENT);
    const seen = new Set<number | null>();
    for (let i = 0; i < 50; i++) {
      const rootLo = randomHalf();
      seen.add(table.ackerFor(rootLo));
      assert.equal(table.ackerFor(rootLo), ackers[idBucket(rootLo, 2)]);
      assert.equal(table.ackerFor(rootLo), ackers[(rootLo & 0x3fffffff) % 2]);
    }
    assert.equal(seen.size, 2, 'both ackers are picked');
    assert.equal(new TaskTable(DEF, 0, 'a:1').ackerFor(randomHalf()), null);
  });

  it("gives a stream's declared fields, and none (or an EmitError) for an undeclared or system stream", () => {
    const table = new TaskTable(DEF, 1, 'a:1');
    assert.deepEqual(table.streamFields('src', 'side')?.names, ['a', 'b']);
    assert.equal(table.streamFields('sink', '__ack_ack'), undefined, 'the ack protocol travels as ack messages, never tuples');
    assert.equal(table.streamFields('src', 'nope'), undefined);
    assert.equal(table.streamFields('nope', 'default'), undefined);
    assert.throws(() => table.fieldsOf('src', 'nope'), (e: unknown) => e instanceof EmitError && e.component === 'src' && e.stream === 'nope');
  });

  it('points tasks at the workers of each assignment and returns the other workers', () => {
    const table = new TaskTable(DEF, 2, 'a:1');
    const [s1, s2] = of('src') as [number, number];
    const [b1, b2, b3] = of('sink') as [number, number, number];
    assert.equal(table.isLocal(s1), false, 'no assignment yet: nothing is local');
    const peers = table.applyAssignment(assignment(1, [worker('a', 1, [s1, b1]), worker('b', 2, [s2, b2, b3])]));
    assert.deepEqual([...peers], [['b:2', { host: 'b.local', port: 2 }]]);
    assert.equal(table.workerOf(b2), 'b:2');
    assert.ok(table.isLocal(s1) && table.isLocal(b1));
    assert.ok(!table.isLocal(b2));
    const moved = table.applyAssignment(assignment(2, [worker('a', 1, [s1, b1, b2]), worker('c', 3, [s2, b3])]));
    assert.deepEqual([...moved.keys()], ['c:3']);
    assert.ok(table.isLocal(b2));
    assert.equal(table.workerOf(s2), 'c:3');
    assert.equal(table.workerOf(99_999), undefined);
  });
});
