/**
 * Storm's BaseStatefulWindowedBolt (IStatefulWindowedBolt): a windowed bolt
 * with a KeyValueState of its own, given in `initState` after a restart as for
 * a StatefulBolt, and windows that survive a crash (docs/state.md, "Stateful
 * windows"). Two kinds, as in Storm:
 *
 * - `withMessageIdField(field)`: the window's tuples stay in memory, as in a
 *   WindowedBolt; what the window had evaluated and let go — per input task,
 *   the highest message id — is saved at every checkpoint. After a crash the
 *   spouts replay what was not committed; replays the window had already let go
 *   are dropped, and a window that fired before the last commit does not fire
 *   again. The field holds a whole number that grows with every tuple an input
 *   task emits (a sequence number, an offset).
 * - `withPersistence()`: the window's tuples live in the state store, at most
 *   `withMaxEventsInMemory(n)` of them in memory (default 1 000 000), so a window
 *   far larger than memory works: each tuple is acked at the checkpoint after
 *   it arrived, whatever the window's length, and a window read back from the
 *   store is given a part at a time through `window.getIter()`. The window's
 *   emits are not anchored to its tuples (they are acked already): after a
 *   rollback the window is evaluated again from the last commit.
 */
import type { MaybePromise } from './components.js';
import type { KeyValueState } from './state.js';
import type { StateDef } from '../common/topology-def.js';
import { StateValidationError } from '../common/errors.js';
import { WindowedBolt } from './windowed-bolt.js';

/** Storm's default for withMaxEventsInMemory. */
const DEFAULT_MAX_EVENTS_IN_MEMORY = 1_000_000;

export abstract class StatefulWindowedBolt<S = KeyValueState> extends WindowedBolt {
  private messageIdField: string | null = null;
  private persistent = false;
  private maxEventsInMemory: number | null = null;

  /** Called once, after prepare and before the first window, with the last committed state (empty the first time). */
  abstract initState(state: S): MaybePromise<void>;
  prePrepare(_txid: number): MaybePromise<void> {}
  preCommit(_txid: number): MaybePromise<void> {}
  preRollback(): MaybePromise<void> {}

  /** The tuple field that holds each input tuple's message id: a whole number growing with every tuple its task emits. */
  withMessageIdField(field: string): this {
    if (typeof field !== 'string' || field === '') throw new StateValidationError('withMessageIdField(field): the field name must be a non-empty string');
    this.messageIdField = field;
    return this;
  }

  /** Keeps the window's tuples in the state store instead of memory (see withMaxEventsInMemory). */
  withPersistence(): this {
    this.persistent = true;
    return this;
  }

  /** With withPersistence(): at most this many of the window's tuples in memory (default 1 000 000, at least 10 000 as in Storm). */
  withMaxEventsInMemory(n: number): this {
    if (!Number.isSafeInteger(n) || n < 1) throw new StateValidationError(`withMaxEventsInMemory(${String(n)}): a whole number of tuples ≥ 1`);
    this.maxEventsInMemory = n;
    return this;
  }

  /** Whether the window's tuples live in the state store (withPersistence), as Storm's isPersistent. */
  isPersistent(): boolean {
    return this.persistent;
  }

  /** What the topology definition records (the builder asks, naming the component); throws for a bolt configured wrong. */
  stateDef(component: string): StateDef {
    if (!this.persistent && this.messageIdField === null) {
      throw new StateValidationError(
        `component "${component}": a StatefulWindowedBolt keeps its windows in memory unless withPersistence() is called, and then needs withMessageIdField(field) to know, after a crash, which tuples it had evaluated`,
        component,
      );
    }
    if (!this.persistent && this.maxEventsInMemory !== null) {
      throw new StateValidationError(`component "${component}": withMaxEventsInMemory applies to a persistent window; also call withPersistence(), or leave it out`, component);
    }
    return { messageIdField: this.messageIdField, maxEventsInMemory: this.persistent ? (this.maxEventsInMemory ?? DEFAULT_MAX_EVENTS_IN_MEMORY) : null };
  }
}
