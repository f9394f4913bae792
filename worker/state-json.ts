/** JSON values in the cluster state, as the worker reads and writes them. */
import type { ClusterState, Watcher } from '../common/cluster-state.js';
import { isStateError } from '../common/cluster-state.js';

/** Reads a JSON node (null when missing); with a watcher, it fires on the next change or creation. */
export async function readJsonNode<T>(store: ClusterState, path: string, watcher?: Watcher): Promise<T | null> {
  const stat = await store.exists(path, watcher);
  if (!stat) return null;
  try {
    const { data } = await store.get(path);
    return JSON.parse(data.toString('utf8')) as T;
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
