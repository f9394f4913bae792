/**
 * node-zookeeper-client errors → ClusterStateError. The library reports
 * server answers as `Exception` (with a numeric code) and bad arguments as
 * assertion errors; callers only ever see a ClusterStateError kind.
 */
import { Exception } from 'node-zookeeper-client';
import { ClusterStateError, type ClusterStateErrorKind } from '../cluster-state.js';

/**
 * node-zookeeper-client 1.1.3 knows only ZooKeeper 3.4's error codes and throws "Unknown code: N" for any other
 * one a server sends — from its socket's data handler, where nothing can catch it, so the process ends. Debian's
 * ZooKeeper 3.8 answers UNKNOWNSESSION (-12) to a request that reaches it just after it closed the session (a
 * soak run hit it in zookeeper-state.test's forced expiry). An unknown code becomes an Exception the library and
 * this module know: UNKNOWNSESSION as SESSION_EXPIRED (the session is gone), any other as SYSTEM_ERROR (which
 * reads as CONNECTION_LOSS below: outcome unknown, retry). The library looks `Exception.create` up at each call.
 */
const UNKNOWN_SESSION = -12;
const zkException = Exception as unknown as { create(code: number, path?: string): Exception };
const createKnownException = zkException.create;
zkException.create = function createException(code: number, path?: string): Exception {
  try {
    return createKnownException.call(this, code, path);
  } catch {
    return createKnownException.call(this, code === UNKNOWN_SESSION ? Exception.SESSION_EXPIRED : Exception.SYSTEM_ERROR, path);
  }
};

const KIND_BY_CODE = new Map<number, ClusterStateErrorKind>([
  [Exception.NO_NODE, 'NO_NODE'],
  [Exception.NODE_EXISTS, 'NODE_EXISTS'],
  [Exception.BAD_VERSION, 'BAD_VERSION'],
  [Exception.NOT_EMPTY, 'NOT_EMPTY'],
  [Exception.CONNECTION_LOSS, 'CONNECTION_LOSS'],
  [Exception.SESSION_EXPIRED, 'SESSION_EXPIRED'],
  [Exception.OPERATION_TIMEOUT, 'TIMEOUT'],
  [Exception.NO_CHILDREN_FOR_EPHEMERALS, 'BAD_ARGUMENT'],
  [Exception.BAD_ARGUMENTS, 'BAD_ARGUMENT'],
  [Exception.INVALID_ACL, 'BAD_ARGUMENT'],
  [Exception.NO_AUTH, 'NO_AUTH'],
  [Exception.AUTH_FAILED, 'NO_AUTH'],
  [Exception.INVALID_CALLBACK, 'BAD_ARGUMENT'],
  [Exception.API_ERROR, 'BAD_ARGUMENT'],
]);

export function zkErrorCode(err: unknown): number | undefined {
  return err instanceof Exception ? err.getCode() : undefined;
}

/**
 * `op` and `path` (the caller's, not the rooted one) go into the message. Codes
 * without a kind of their own (system / marshalling errors) read as
 * CONNECTION_LOSS: the outcome is unknown and a retry is the right response.
 */
export function fromZooKeeperError(err: unknown, op: string, path: string): ClusterStateError {
  if (err instanceof ClusterStateError) return err;
  const code = zkErrorCode(err);
  if (code === undefined) {
    return new ClusterStateError('BAD_ARGUMENT', path, `ZooKeeper client refused ${op} ${path}: ${(err as Error)?.message ?? String(err)}`);
  }
  let kind = KIND_BY_CODE.get(code) ?? 'CONNECTION_LOSS';
  // ZooKeeper answers NO_NODE when the parent of a node being created is missing.
  if (op === 'create' && kind === 'NO_NODE') kind = 'NO_PARENT';
  const name = (err as Exception).getName();
  const why =
    code === Exception.NO_CHILDREN_FOR_EPHEMERALS
      ? 'ephemeral nodes cannot have children'
      : code === Exception.NO_AUTH || code === Exception.AUTH_FAILED
        ? `${name}: the node's ACL does not admit this client (hstorm.zookeeper.auth.payload must be the same on every hstorm process)`
        : name;
  return new ClusterStateError(kind, path, `ZooKeeper ${op} ${path}: ${why}`);
}
