/**
 * What an executor needs from the worker it runs in. Executors never touch
 * sockets or the cluster state directly; they go through this.
 */
import type { ComponentPlacement, TopologyContext } from '../../topology-sdk/context.js';
import type { Logger } from '../../common/logger.js';
import type { RoutingTopology } from '../routing/output-router.js';
import type { IntervalClock } from '../../common/interval-clock.js';
import type { ValueTypes } from '../../common/values/value-types.js';
import type { AnchorIds } from './runtime-tuple.js';
import type { AckKind } from '../acking/ack-messages.js';
import type { StaleTuples } from '../fencing/stale-tuples.js';

/**
 * An acker task running in this process, as the spouts and bolts beside it
 * call it: the ack protocol's messages as calls instead of tuples (see
 * acking/acker-executor.ts). Values come from the runtime, not a socket;
 * ids are given as their uint32 halves (acking/ack-ids.ts).
 */
export interface LocalAcker {
  /** INIT from a spout task: its root and the XOR of its first edges. */
  initLocal(rootLo: number, rootHi: number, xorLo: number, xorHi: number, spoutTask: number): void;
  /** ACK from a bolt task: the root and the tuple's edge XOR its children's. */
  ackLocal(rootLo: number, rootHi: number, valLo: number, valHi: number): void;
  /** FAIL from a bolt task. */
  failLocal(rootLo: number, rootHi: number): void;
  /** RESET from a bolt task (OutputCollector.resetTimeout). */
  resetLocal(rootLo: number, rootHi: number): void;
}

export interface ExecutorHost extends RoutingTopology {
  readonly topologyId: string;
  readonly log: Logger;
  /** Effective config of a component (topology config + component config). */
  configOf(component: string): Readonly<Record<string, unknown>>;
  /**
   * Delivers one tuple: into a local queue, or towards the worker that holds `dest`. `wire`: the values' wire form
   * (common/values/wire-form.ts) when they need one to travel; a local task gets `values` themselves. `treeStart`:
   * when the oldest spout tuple the tuple descends from was emitted (RuntimeTuple.treeStart).
   */
  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: AnchorIds, wire?: unknown[] | null, treeStart?: number): void;
  /**
   * Sends one ack-protocol message (acking/ack-messages.ts) to a task; between workers, the messages of one kind from
   * one task to one task travel merged in the frame's ack section. `valLo`/`valHi` only for INIT and ACK.
   */
  sendAck(dest: number, srcTask: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void;
  /** Sends a run of messages of one kind at once (an acker's replies to one spout): `words` as ack-messages.ts lays them out. */
  sendAcks(dest: number, srcTask: number, kind: AckKind, words: Uint32Array): void;
  /** Acker task for a root id, from its low half; null when acking is off. */
  ackerFor(rootLo: number): number | null;
  /** True when any of these tasks' queues (or the links towards them) is full. */
  isCongested(targets: readonly number[]): boolean;
  /** Asks the worker's run loop for another turn. */
  wake(): void;
  /** The acker task `task` when it runs in this process (spouts and bolts then call it); undefined: send it tuples. */
  localAcker(task: number): LocalAcker | undefined;
  /** Whether the executor of `task` runs in this process (an acker gathers its replies to such a spout). */
  runsHere(task: number): boolean;
  /** Which tasks of a component run in the current assignment, and the scheduler's reason for those that do not. */
  placementOf(component: string): ComponentPlacement;
  /** Builds the context handed to a task's open/prepare. */
  contextFor(component: string, task: number): TopologyContext;
  /** The timers of time-driven executor work (tick tuples); absent: real timers. Tests step a manual clock. */
  readonly clock?: IntervalClock;
  /** Which tracked tuples are too old to execute (their spouts have replayed them); absent: every tuple executes. */
  readonly staleTuples?: StaleTuples;
  /** The classes the topology registered (registerSerialization); absent: none. */
  readonly valueTypes?: ValueTypes;
}
