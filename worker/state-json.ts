/** JSON values in the cluster state, as the worker reads and writes them. */
import type { z } from 'zod';
import type { ClusterState, Watcher } from '../common/cluster-state.js';
import { isStateError } from '../common/cluster-state.js';
import { decodeJson } from '../common/cluster-state/json-node.js';

/**
 * Reads a JSON node validated with `schema` — the same zod schemas nimbus and
 * the supervisor read it with (common/record-schemas.ts) — or null when it is
 * missing. A node that is not JSON or does not match raises ClusterStateError
 * CORRUPT; the watcher (set first) still fires on the node's next change.
 */
export async function readJsonNode<S extends z.ZodType>(store: ClusterState, path: string, schema: S, watcher?: Watcher): Promise<z.output<S> | null> {
  const stat = await store.exists(path, watcher);
  if (!stat) return null;
  try {
    const { data } = await store.get(path);
    return decodeJson(path, data, schema);
  } catch (err) {
    if (isStateError(err, 'NO_NODE')) return null;
    throw err;
  }
}

/** Creates or overwrites a JSON node (parents created as needed). */
export async function writeJsonNode(store: ClusterState, path: string, value: unknown): Promise<void> {
  const data = Buffer.from(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  try {
    await store.set(path, data);
  } catch (err) {
    if (!isStateError(err, 'NO_NODE')) throw err;
    try {
      await store.create(path, data, { parents: true });
    } catch (err2) {
      if (!isStateError(err2, 'NODE_EXISTS')) throw err2;
      await store.set(path, data);
    }
  }
}
