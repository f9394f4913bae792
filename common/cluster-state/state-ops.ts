/**
 * Small idempotent steps daemons repeat (reconcile rounds may repeat, a restart
 * may find half of a previous round done): delete-if-present and
 * create-if-absent, so a repeated step is never an error. The JSON
 * set-or-create is `putJson` in json-node.ts.
 */
import { isStateError, type ClusterState } from '../cluster-state.js';

export async function removeNode(state: ClusterState, path: string, recursive = false): Promise<void> {
  try {
    await state.delete(path, { recursive });
  } catch (err) {
    if (!isStateError(err, 'NO_NODE')) throw err;
  }
}

export async function ensureNode(state: ClusterState, path: string): Promise<void> {
  try {
    await state.create(path, new Uint8Array(), { parents: true });
  } catch (err) {
    if (!isStateError(err, 'NODE_EXISTS')) throw err;
  }
}
