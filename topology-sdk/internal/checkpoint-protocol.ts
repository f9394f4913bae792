/**
 * The checkpoint protocol's vocabulary (Storm's CheckPointState and its
 * Action): where the checkpoint spout's transaction stands, what it sends
 * next, and how to read a checkpoint tuple. Pure functions; the spout
 * (checkpoint-spout.ts) and the bolts (checkpoint-barrier.ts,
 * stateful-bolt-executor.ts) act on them.
 *
 *                 ROLLBACK(tx2)
 *              <--------------          PREPARE(tx2)              COMMIT(tx2)
 *   COMMITTED(tx1) -----------> PREPARING(tx2) ------> COMMITTING(tx2) ------> COMMITTED(tx2)
 *
 * A checkpoint moves COMMITTED(n) → PREPARING(n+1) (sends PREPARE) →
 * COMMITTING(n+1) once every bolt acked the prepare (sends COMMIT) →
 * COMMITTED(n+1) once every bolt acked the commit. Recovery — at start, and
 * after any checkpoint tuple fails or times out — rolls a PREPARING
 * transaction back (not every bolt may have prepared) and a COMMITTING one
 * forward (some bolts may have committed), then sends INITSTATE so that
 * every bolt starts from the last committed state.
 */
import { CHECKPOINT_STREAM } from '../../common/topology-def.js';
import type { Tuple } from '../tuple.js';

export type CheckpointAction = 'PREPARE' | 'COMMIT' | 'ROLLBACK' | 'INITSTATE';
export type TxPhase = 'COMMITTED' | 'PREPARING' | 'COMMITTING';

export interface TxState {
  txid: number;
  phase: TxPhase;
}

/** Before any checkpoint: transaction 0 counts as committed (Storm starts at -1; hstorm's first checkpoint is 1). */
export const INITIAL_TX: TxState = Object.freeze({ txid: 0, phase: 'COMMITTED' });

const ACTIONS: ReadonlySet<string> = new Set(['PREPARE', 'COMMIT', 'ROLLBACK', 'INITSTATE']);
const PHASES: ReadonlySet<string> = new Set(['COMMITTED', 'PREPARING', 'COMMITTING']);

/** The state after the current step was acked by every bolt. */
export function nextTxState(s: TxState, recovering: boolean): TxState {
  switch (s.phase) {
    case 'PREPARING':
      return recovering ? { txid: s.txid - 1, phase: 'COMMITTED' } : { txid: s.txid, phase: 'COMMITTING' };
    case 'COMMITTING':
      return { txid: s.txid, phase: 'COMMITTED' };
    case 'COMMITTED':
      return recovering ? s : { txid: s.txid + 1, phase: 'PREPARING' };
  }
}

/** What to send in this state. */
export function nextAction(s: TxState, recovering: boolean): CheckpointAction {
  switch (s.phase) {
    case 'PREPARING':
      return recovering ? 'ROLLBACK' : 'PREPARE';
    case 'COMMITTING':
      return 'COMMIT';
    case 'COMMITTED':
      return recovering ? 'INITSTATE' : 'PREPARE';
  }
}

export function isCheckpoint(t: Tuple): boolean {
  return t.sourceStreamId === CHECKPOINT_STREAM;
}

/** A checkpoint tuple's `[txid, action]`, or null when its values are not one (anything may arrive on a port). */
export function readCheckpoint(t: Tuple): { txid: number; action: CheckpointAction } | null {
  const [txid, action] = t.values;
  if (t.values.length !== 2 || !Number.isSafeInteger(txid) || typeof action !== 'string' || !ACTIONS.has(action)) return null;
  return { txid: txid as number, action: action as CheckpointAction };
}

/** A stored TxState, or null when the bytes decoded to something else. */
export function asTxState(v: unknown): TxState | null {
  if (typeof v !== 'object' || v === null) return null;
  const { txid, phase } = v as Record<string, unknown>;
  if (!Number.isSafeInteger(txid) || typeof phase !== 'string' || !PHASES.has(phase)) return null;
  return { txid: txid as number, phase: phase as TxPhase };
}
