/**
 * Stream groupings: how the tuples of a stream are divided among the tasks
 * of a subscribing bolt (Storm's set).
 */
import type { GroupingDef } from '../common/topology-def.js';

export const Grouping = {
  /** Random, evenly spread. */
  shuffle: (): GroupingDef => ({ type: 'shuffle' }),
  /** Shuffle among the target tasks in this worker process when there are any. */
  localOrShuffle: (): GroupingDef => ({ type: 'localOrShuffle' }),
  /** Equal values of these fields always go to the same task. */
  fields: (...names: string[]): GroupingDef => ({ type: 'fields', fields: names }),
  /** Every tuple to every task. */
  all: (): GroupingDef => ({ type: 'all' }),
  /** Every tuple to the task with the lowest id. */
  global: (): GroupingDef => ({ type: 'global' }),
  /** The emitter picks the task (`emitDirect`). */
  direct: (): GroupingDef => ({ type: 'direct' }),
} as const;
