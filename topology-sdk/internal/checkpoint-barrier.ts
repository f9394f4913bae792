/**
 * When a bolt acts on a checkpoint (Storm's BaseStatefulBoltExecutor): only
 * once the same action and txid arrived from every task that sends it the
 * checkpoint stream, so that its state includes everything its inputs sent
 * before the checkpoint. Earlier arrivals are acked and wait.
 *
 * hstorm counts the *tasks* an action came from, where Storm counts
 * arrivals: after a failure the spout sends the same action and txid again,
 * and an arrival of the retry must not stand in for a task whose first copy
 * was lost with a worker.
 */
import type { TopologyContext } from '../context.js';
import { CHECKPOINT_STREAM } from '../../common/topology-def.js';
import type { CheckpointAction } from './checkpoint-protocol.js';

export type BarrierResult = 'go' | 'wait' | 'stale';

/** Partial arrivals kept at most (older transactions' are dropped first): a lost tuple must not grow the map for ever. */
const MAX_PENDING = 64;

export class CheckpointBarrier {
  private readonly arrived = new Map<string, { txid: number; tasks: Set<number> }>();
  private lastTxid = -Infinity;

  constructor(readonly inputTasks: ReadonlySet<number>) {}

  /** The tasks that send `component` the checkpoint stream (every task of each component it subscribes to it from). */
  static inputsOf(context: TopologyContext): Set<number> {
    const me = context.topologyDef.components.find((c) => c.id === context.componentId);
    const tasks = new Set<number>();
    for (const i of me?.inputs ?? []) if (i.stream === CHECKPOINT_STREAM) for (const t of context.tasksOf(i.component)) tasks.add(t);
    return tasks;
  }

  /**
   * One checkpoint tuple from `fromTask`: `go` when every input task has now sent this action and txid, `wait`
   * before that, `stale` for a transaction older than the last one acted on (or a task that is not an input).
   */
  arrive(action: CheckpointAction, txid: number, fromTask: number): BarrierResult {
    if (!this.inputTasks.has(fromTask) || txid < this.lastTxid) return 'stale';
    const key = `${action}:${txid}`;
    let a = this.arrived.get(key);
    if (!a) {
      a = { txid, tasks: new Set() };
      this.arrived.set(key, a);
      if (this.arrived.size > MAX_PENDING) this.dropOldest();
    }
    a.tasks.add(fromTask);
    if (a.tasks.size < this.inputTasks.size) return 'wait';
    this.arrived.delete(key);
    return 'go';
  }

  /** The bolt acted on `action` `txid`: older transactions are stale from now on (after a rollback, `txid` itself is not). */
  acted(action: CheckpointAction, txid: number): void {
    this.lastTxid = action === 'ROLLBACK' ? txid - 1 : txid;
    for (const [k, a] of this.arrived) if (a.txid < this.lastTxid) this.arrived.delete(k);
  }

  private dropOldest(): void {
    let oldest: [string, number] | null = null;
    for (const [k, a] of this.arrived) if (oldest === null || a.txid < oldest[1]) oldest = [k, a.txid];
    if (oldest) this.arrived.delete(oldest[0]);
  }
}
