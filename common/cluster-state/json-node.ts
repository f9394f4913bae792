/**
 * JSON values in znodes, validated with zod on the way out. A node whose bytes
 * are not UTF-8 JSON, or whose JSON does not match the schema, raises
 * ClusterStateError CORRUPT (never a bare SyntaxError or ZodError), so a
 * daemon reading many nodes can log it, count it and skip that node.
 *
 * A node written often and read by machines only (a worker's metrics record)
 * may be written compact: the same JSON, deflated (zlib). Readers tell the two
 * apart by the first bytes — a zlib stream starts 0x78 and a header that is a
 * multiple of 31, JSON text never with an `x` — so every reader takes both.
 * Deflate shrinks a metrics record about 3×, which is what ZooKeeper's
 * transaction log grows by (docs/operations.md).
 */
import { deflateSync, inflateSync } from 'node:zlib';
import type { z } from 'zod';
import { ClusterStateError, isStateError, type ClusterState, type CreateMode, type CreateOptions, type NodeStat, type Watcher } from '../cluster-state.js';

/** Inflated bytes a compact node may hold: far above any record (ZooKeeper's own node limit is 1 MiB). */
const MAX_INFLATED_BYTES = 16 * 2 ** 20;

/** Whether `data` is a zlib stream (a compact node) rather than JSON text. */
export function isCompact(data: Uint8Array): boolean {
  return data.length >= 2 && data[0] === 0x78 && ((data[0] << 8) | data[1]!) % 31 === 0;
}

/** Decodes and validates one node's bytes (plain or compact); `path` is only for the error. */
export function decodeJson<S extends z.ZodType>(path: string, data: Uint8Array, schema: S): z.output<S> {
  let value: unknown;
  try {
    const text = isCompact(data) ? inflateSync(data, { maxOutputLength: MAX_INFLATED_BYTES }) : data;
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(text));
  } catch (err) {
    throw new ClusterStateError('CORRUPT', path, `node ${path} does not hold valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new ClusterStateError('CORRUPT', path, `node ${path} holds JSON that does not match its schema: ${issues}`);
  }
  return parsed.data;
}

/** A bigint (a user metric, an id) is written as its decimal string: JSON.stringify would throw on it. */
const bigintAsString = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value, bigintAsString), 'utf8');
}

/** The compact form: the JSON deflated (see the header). */
export function encodeCompactJson(value: unknown): Buffer {
  return deflateSync(encodeJson(value));
}

/** Reads and validates a JSON node; NO_NODE when missing, CORRUPT when unreadable. */
export async function readJson<S extends z.ZodType>(
  state: ClusterState,
  path: string,
  schema: S,
  watcher?: Watcher,
): Promise<{ value: z.output<S>; stat: NodeStat }> {
  const { data, stat } = await state.get(path, watcher);
  return { value: decodeJson(path, data, schema), stat };
}

/**
 * Reads a JSON node validated with `schema`, or null when it is missing (also when it vanishes between the existence
 * check and the read). The watcher is set first, so it fires on the node's next change even when this read raises
 * CORRUPT — a repaired node is picked up without polling.
 */
export async function readJsonIfPresent<S extends z.ZodType>(state: ClusterState, path: string, schema: S, watcher?: Watcher): Promise<z.output<S> | null> {
  const stat = await state.exists(path, watcher);
  if (!stat) return null;
  try {
    const { data } = await state.get(path);
    return decodeJson(path, data, schema);
  } catch (err) {
    if (isStateError(err, 'NO_NODE')) return null;
    throw err;
  }
}

/**
 * Creates or overwrites a JSON node (parents created as needed): the one set-or-create, for writes a daemon repeats
 * (reconcile rounds, heartbeats) where a repeated or half-done step must never be an error.
 */
export function putJson(state: ClusterState, path: string, value: unknown, mode: CreateMode = 'persistent'): Promise<void> {
  return putNode(state, path, encodeJson(value), mode);
}

/** putJson for bytes already encoded (a compact node). */
export async function putNode(state: ClusterState, path: string, data: Uint8Array, mode: CreateMode = 'persistent'): Promise<void> {
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

/** Writes a JSON node; with `version` it is a compare-and-set. */
export function writeJson<T>(state: ClusterState, path: string, value: T, version?: number): Promise<NodeStat> {
  return state.set(path, encodeJson(value), version);
}

/** Creates a JSON node; returns its actual path. */
export function createJson<T>(state: ClusterState, path: string, value: T, options?: CreateOptions): Promise<string> {
  return state.create(path, encodeJson(value), options);
}
