/**
 * The cluster-state store: a small ZooKeeper-shaped interface that nimbus,
 * supervisors and workers use for every piece of shared state. Two
 * implementations pass one contract suite (test/unit/common/cluster-state-contract.ts):
 * the in-memory store (local mode, unit tests; reached from worker processes
 * through an IPC proxy) and the ZooKeeper store (cluster mode).
 *
 * Semantics follow ZooKeeper: versions start at 0 and grow by one per set;
 * ephemeral nodes vanish with the session that made them; sequential nodes get
 * a 10-digit zero-padded suffix; watches fire once.
 */
import { HstormError } from './errors.js';

export type CreateMode = 'persistent' | 'ephemeral' | 'persistent_sequential' | 'ephemeral_sequential';

export interface NodeStat {
  /** Data version: 0 after create, +1 per set. */
  version: number;
  /** Children version: +1 per child created or deleted. */
  cversion: number;
  ctime: number;
  mtime: number;
  ephemeral: boolean;
  numChildren: number;
}

export type WatchEventType = 'created' | 'deleted' | 'changed' | 'children';

export interface WatchEvent {
  type: WatchEventType;
  path: string;
}

/** One-shot: fires at most once, for the first event after it was set. */
export type Watcher = (event: WatchEvent) => void;

export interface CreateOptions {
  mode?: CreateMode;
  /** Create missing parents (as persistent, empty nodes). */
  parents?: boolean;
}

/** Connection state seen by a store client. `expired` is followed by `connected` once a new session is up. */
export type SessionState = 'connected' | 'disconnected' | 'expired';

export interface ClusterState {
  /** Creates a node; returns its actual path (with the suffix for sequential nodes). */
  create(path: string, data?: Uint8Array, options?: CreateOptions): Promise<string>;
  /** Reads a node; throws ClusterStateError NO_NODE when missing. */
  get(path: string, watcher?: Watcher): Promise<{ data: Buffer; stat: NodeStat }>;
  /** Stat of a node or null; a watcher set here also fires on creation. */
  exists(path: string, watcher?: Watcher): Promise<NodeStat | null>;
  /** Writes a node; with `version` it is a compare-and-set (BAD_VERSION on mismatch). */
  set(path: string, data: Uint8Array, version?: number): Promise<NodeStat>;
  /** Deletes a node (NOT_EMPTY when it has children, unless `recursive`). */
  delete(path: string, options?: { version?: number; recursive?: boolean }): Promise<void>;
  /** Child names (not paths), sorted. */
  children(path: string, watcher?: Watcher): Promise<string[]>;
  /** Subscribes to the session's state; returns the unsubscribe function. */
  onSessionState(listener: (state: SessionState) => void): () => void;
  /** Ends the session: its ephemeral nodes go away. */
  close(): Promise<void>;
}

export type ClusterStateErrorKind =
  | 'NO_NODE'
  | 'NODE_EXISTS'
  | 'BAD_VERSION'
  | 'NOT_EMPTY'
  | 'NO_PARENT'
  | 'CONNECTION_LOSS'
  | 'SESSION_EXPIRED'
  | 'CLOSED'
  | 'TIMEOUT'
  | 'BAD_ARGUMENT'
  /** A node holds bytes that do not decode or validate (see cluster-state/json-node.ts): log, count, skip. */
  | 'CORRUPT'
  /** ZooKeeper refused: the node's ACL does not admit this client, or its credentials were rejected (hstorm.zookeeper.auth.payload). */
  | 'NO_AUTH';

export class ClusterStateError extends HstormError {
  constructor(
    readonly kind: ClusterStateErrorKind,
    readonly path: string,
    message?: string,
  ) {
    super(`HSTORM_ERR_STATE_${kind}`, message ?? `${kind.toLowerCase().replace(/_/g, ' ')}: ${path}`);
  }
}

export function isStateError(err: unknown, kind: ClusterStateErrorKind): err is ClusterStateError {
  return err instanceof ClusterStateError && err.kind === kind;
}

/** An error that says the store could not be reached just now (the connection, not the request): retry when it is back. */
export function isUnreachableStateError(err: unknown): err is ClusterStateError {
  return err instanceof ClusterStateError && (err.kind === 'CONNECTION_LOSS' || err.kind === 'TIMEOUT' || err.kind === 'SESSION_EXPIRED');
}
