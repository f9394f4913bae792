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
  /**
   * Load-aware: per tuple, two random tasks, and the one whose tuple would
   * be done sooner (queued tuples × mean service time; GPU bolts: kernel
   * time) gets it. Tasks in this worker are read directly, others through
   * the load their workers publish every topology.load.update.interval.ms.
   */
  twoChoice: (): GroupingDef => ({ type: 'twoChoice' }),
  /**
   * Storm's loadAwareShuffleGrouping: shuffle weighted by each task's queue
   * fill, preferring tasks in this worker until they are loaded beyond
   * topology.localityaware.higher.bound.
   */
  loadAwareShuffle: (): GroupingDef => ({ type: 'loadAwareShuffle' }),
  /** Storm's noneGrouping: "don't care", routed as shuffle (as Storm does). */
  none: (): GroupingDef => ({ type: 'none' }),
  /**
   * Storm's partialKeyGrouping: each key has two candidate tasks (two hashes of these fields); a tuple goes to the
   * one with the shorter estimated wait (twoChoice's load signal), or, without figures, the one this task sent
   * fewer tuples to.
   */
  partialKey: (...names: string[]): GroupingDef => ({ type: 'partialKey', fields: names }),
} as const;
