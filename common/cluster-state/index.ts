/**
 * Cluster-state store implementations (the interface is common/cluster-state.ts).
 *
 *   const store = new InMemoryClusterStore(log);          // local mode: the tree lives here
 *   const state = store.session();                        // one client = one session
 *   const zk = await connectZooKeeper({ servers: ['zk1:2181'], root: '/hstorm',
 *     sessionTimeoutMs: 6000, connectTimeoutMs: 10_000 }, log);  // cluster mode
 *   const { value } = await readJson(zk, ZkPaths.assignment(id), AssignmentSchema);
 *
 * Worker processes in local mode use IpcClusterState; the local-cluster
 * process answers them with serveClusterStateOverIpc. All of them pass the
 * same contract suite (test/unit/common/cluster-state-contract.ts).
 */
export { InMemoryClusterStore, InMemorySession } from './in-memory-store.js';
export { IpcClusterState } from './ipc-client.js';
export { serveClusterStateOverIpc } from './ipc-server.js';
export type { IpcClusterStateOptions } from './ipc-client.js';
export type { IpcStateServer } from './ipc-server.js';
export type { IpcEndpoint } from './ipc-messages.js';
export { ZooKeeperClusterState, connectZooKeeper } from './zookeeper-store.js';
export type { ZooKeeperOptions } from './zookeeper-store.js';
export { readJson, readJsonIfPresent, writeJson, createJson, putJson, decodeJson, encodeJson } from './json-node.js';
export { ensureNode, removeNode } from './state-ops.js';
export { MAX_DATA_BYTES } from './node-path.js';
