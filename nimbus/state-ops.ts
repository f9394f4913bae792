/**
 * Small idempotent writes nimbus makes over and over (reconcile rounds may
 * repeat, a restart may find half of a previous round done): create-or-set and
 * delete-if-present, so a repeated step is never an error.
 */
import { isStateError, type ClusterState, type CreateMode } from '../common/cluster-state.js';
import { encodeJson } from '../common/cluster-state/json-node.js';

export async function putJson(state: ClusterState, path: string, value: unknown, mode: CreateMode = 'persistent'): Promise<void> {
  const data = encodeJson(value);
  try {
    await state.set(path, data);
  } catch (err) {
    if (!isStateError(err, 'NO_NODE')) throw err;
    try {
      await state.create(path, data, { mode, parents: true });
    } catch (err2) {
      // Someone created it between our set and create: set wins the race.
      if (!isStateError(err2, 'NODE_EXISTS')) throw err2;
      await state.set(path, data);
    }
  }
}

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
