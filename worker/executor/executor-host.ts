/**
 * What an executor needs from the worker it runs in. Executors never touch
 * sockets or the cluster state directly; they go through this.
 */
import type { Fields } from '../../topology-sdk/fields.js';
import type { TopologyContext } from '../../topology-sdk/context.js';
import type { Logger } from '../../common/logger.js';
import type { RoutingTopology } from '../routing/output-router.js';
import type { Executor } from './executor.js';

export interface ExecutorHost extends RoutingTopology {
  readonly topologyId: string;
  readonly log: Logger;
  /** Effective config of a component (topology config + component config). */
  configOf(component: string): Readonly<Record<string, unknown>>;
  fieldsOf(component: string, stream: string): Fields;
  /** Delivers one tuple: into a local queue, or towards the worker that holds `dest`. */
  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: bigint[] | null): void;
  /** Acker task for a root id; null when acking is off. */
  ackerFor(root: bigint): number | null;
  /** True when any of these tasks' queues (or the links towards them) is full. */
  isCongested(targets: readonly number[]): boolean;
  /** Asks the worker's run loop for another turn. */
  wake(): void;
  /**
   * The executor of `task` when it runs in this process (the Worker has it; a host without it makes every ack-protocol
   * message travel as a tuple). Spouts and bolts call a local acker directly through it (acker-executor.ts).
   */
  executorOf?(task: number): Executor | undefined;
  /** Builds the context handed to a task's open/prepare. */
  contextFor(component: string, task: number): TopologyContext;
}
