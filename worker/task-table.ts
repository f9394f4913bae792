/**
 * The worker's task table: which component each task runs, which worker holds
 * it, which tasks are the ackers and which one tracks a tree, and the fields
 * of every declared stream (Storm keeps the same maps in its WorkerState).
 * Pure look-ups — no I/O, no executors: built from the topology definition,
 * and re-pointed at each new assignment.
 */
import { EmitError } from '../common/errors.js';
import { ACKER_COMPONENT, computeTasks, type TopologyDef } from '../common/topology-def.js';
import { workerKey, type Assignment } from '../common/assignment.js';
import { Fields } from '../topology-sdk/fields.js';
import type { ComponentPlacement } from '../topology-sdk/context.js';
import { idBucket } from './acking/ack-ids.js';

/** Where another worker of the assignment listens. */
export interface WorkerAddress {
  host: string;
  port: number;
}

export class TaskTable {
  private readonly componentTasks = new Map<string, number[]>();
  private readonly taskComponent = new Map<number, string>();
  private taskWorker = new Map<number, string>();
  /** The scheduler's reason for each task it left unassigned in the current assignment. */
  private unassigned = new Map<number, string>();
  private readonly ackerTasks: readonly number[];
  /** component → stream → Fields (nested maps: no key string built per tuple). */
  private readonly fields = new Map<string, Map<string, Fields>>();

  /** `ackers`: acker tasks of the topology (WorkerSettings.ackers); `selfKey`: this worker's key (common/assignment.ts workerKey). */
  constructor(
    def: TopologyDef,
    ackers: number,
    readonly selfKey: string,
  ) {
    for (const t of computeTasks(def, ackers)) {
      this.taskComponent.set(t.task, t.component);
      const list = this.componentTasks.get(t.component) ?? [];
      list.push(t.task);
      this.componentTasks.set(t.component, list);
    }
    this.ackerTasks = this.componentTasks.get(ACKER_COMPONENT) ?? [];
    for (const c of def.components) this.fields.set(c.id, new Map(c.streams.map((s) => [s.id, new Fields(s.fields)])));
  }

  /** The component a task runs; undefined for a task the topology does not have. */
  componentOf(task: number): string | undefined {
    return this.taskComponent.get(task);
  }

  tasksOf(component: string): readonly number[] {
    return this.componentTasks.get(component) ?? [];
  }

  /** The acker task that tracks the tree of a root, from its low half (every task picks the same one, from the root alone); null when acking is off. */
  ackerFor(rootLo: number): number | null {
    if (this.ackerTasks.length === 0) return null;
    return this.ackerTasks[idBucket(rootLo, this.ackerTasks.length)]!;
  }

  /** The fields a component declared on a stream; undefined for an undeclared stream. */
  streamFields(component: string, stream: string): Fields | undefined {
    return this.fields.get(component)?.get(stream);
  }

  /** As streamFields, but an undeclared stream is the emitter's mistake: an EmitError. */
  fieldsOf(component: string, stream: string): Fields {
    const f = this.streamFields(component, stream);
    if (!f) throw new EmitError(`stream "${stream}" of "${component}" is not declared`, component, stream);
    return f;
  }

  /** The key of the worker that holds a task in the current assignment; undefined when none does. */
  workerOf(task: number): string | undefined {
    return this.taskWorker.get(task);
  }

  isLocal(task: number): boolean {
    return this.taskWorker.get(task) === this.selfKey;
  }

  /** A worker runs the task in the current assignment. */
  isPlaced(task: number): boolean {
    return this.taskWorker.has(task);
  }

  /** Which tasks of a component run, which do not, and the scheduler's reason for those. */
  placementOf(component: string): ComponentPlacement {
    const running: number[] = [];
    const unplaced: number[] = [];
    for (const t of this.tasksOf(component)) (this.taskWorker.has(t) ? running : unplaced).push(t);
    const first = unplaced[0];
    const reason = first === undefined ? null : (this.unassigned.get(first) ?? 'not in the current assignment');
    return { running, unplaced, reason };
  }

  /** Points every task at the worker that holds it in `a`; returns the other workers of `a` by key. */
  applyAssignment(a: Assignment): Map<string, WorkerAddress> {
    const taskWorker = new Map<number, string>();
    const peers = new Map<string, WorkerAddress>();
    for (const w of a.workers) {
      const key = workerKey(w);
      for (const e of w.executors) taskWorker.set(e.task, key);
      if (key !== this.selfKey) peers.set(key, { host: w.host, port: w.port });
    }
    this.taskWorker = taskWorker;
    this.unassigned = new Map(a.unassigned.map((u) => [u.task, u.reason]));
    return peers;
  }
}
