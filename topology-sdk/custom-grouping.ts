/**
 * Storm's CustomStreamGrouping: the author decides which tasks of a subscribing bolt get each tuple.
 *
 * A topology's definition goes to nimbus as JSON, so a grouping object cannot travel in it (Storm serializes the Java
 * object; hstorm has no such thing for JavaScript). The object lives where the component factories live: in the
 * topology module, which every worker loads and builds again. The definition keeps only the grouping's name, and a
 * worker whose module builds another grouping name there refuses to start (checkSameShape), as for components.
 */
import type { GlobalStreamId } from '../common/topology-def.js';
import type { TopologyContext } from './context.js';

export interface CustomStreamGrouping {
  /**
   * Called once per emitting task, before its first tuple: `context` is that task's, `stream` the subscribed stream,
   * `targetTasks` every task of the subscribing bolt, sorted.
   */
  prepare(context: TopologyContext, stream: GlobalStreamId, targetTasks: readonly number[]): void;
  /** The tasks (some of `targetTasks`) that get a tuple emitted by task `taskId` with these values. */
  chooseTasks(taskId: number, values: readonly unknown[]): readonly number[];
}

/**
 * What `customGrouping` takes: a grouping object (Storm's habit) or a function making one. Each emitting task needs
 * its own object, as each Storm executor deserializes its own copy: a function is called once per task; an object is
 * copied per task (its own fields, shallowly, with its prototype) — state it builds in `prepare` is then per task.
 */
export type CustomGroupingSource = CustomStreamGrouping | (() => CustomStreamGrouping);

/** A function making a fresh grouping object per emitting task, from either form. */
export function groupingFactory(source: CustomGroupingSource): () => CustomStreamGrouping {
  if (isGrouping(source)) {
    return () => Object.assign(Object.create(Object.getPrototypeOf(source) as object) as CustomStreamGrouping, source);
  }
  return source;
}

export function isGrouping(v: unknown): v is CustomStreamGrouping {
  return typeof v === 'object' && v !== null && typeof (v as CustomStreamGrouping).chooseTasks === 'function' && typeof (v as CustomStreamGrouping).prepare === 'function';
}

/** The name the definition records for a grouping: its class name. */
export function groupingName(source: CustomGroupingSource): string {
  if (isGrouping(source)) return (Object.getPrototypeOf(source) as { constructor?: { name?: string } } | null)?.constructor?.name || 'CustomStreamGrouping';
  return source.name || 'CustomStreamGrouping';
}

/** The key of one subscription in StormTopology.customGroupings. */
export function subscriptionKey(subscriber: string, source: string, stream: string): string {
  return `${subscriber}\u0000${source}\u0000${stream}`;
}
