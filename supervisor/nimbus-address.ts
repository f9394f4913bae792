/**
 * Where nimbus answers: the address nimbus published in ZooKeeper (it may have
 * moved since the supervisor started), else the configured one.
 */
import type { ClusterState } from '../common/cluster-state.js';
import { readJson } from '../common/cluster-state/json-node.js';
import { nimbusInfoSchema } from '../common/record-schemas.js';
import { ZkPaths } from '../common/zk-paths.js';

export async function nimbusAddress(state: ClusterState, configured: { host: string; port: number }): Promise<{ host: string; port: number }> {
  try {
    const { value } = await readJson(state, ZkPaths.nimbus, nimbusInfoSchema);
    return { host: value.host, port: value.port };
  } catch {
    return configured;
  }
}
