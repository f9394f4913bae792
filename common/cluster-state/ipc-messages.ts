/**
 * The cluster-state IPC channel between a worker process (IpcClusterState) and
 * the local-cluster process that holds the in-memory store
 * (serveClusterStateOverIpc). One tagged union per direction, each message with
 * a string `type` starting `state.` and `version: 1`; the channel is Node's
 * JSON IPC, so bytes travel as base64 and errors as `{ code, kind, message }`.
 * Other modules share the channel: anything whose `type` does not start with
 * `state.` is not ours and is left alone.
 */
import type { Serializable } from 'node:child_process';
import { z } from 'zod';
import { HstormError } from '../errors.js';
import { ClusterStateError, type ClusterStateErrorKind } from '../cluster-state.js';

export const STATE_MESSAGE_PREFIX = 'state.';
export const STATE_PROTOCOL_VERSION = 1;

const KINDS = [
  'NO_NODE',
  'NODE_EXISTS',
  'BAD_VERSION',
  'NOT_EMPTY',
  'NO_PARENT',
  'CONNECTION_LOSS',
  'SESSION_EXPIRED',
  'CLOSED',
  'TIMEOUT',
  'BAD_ARGUMENT',
  'CORRUPT',
  'NO_AUTH',
] as const satisfies readonly ClusterStateErrorKind[];

// Compile-time check that KINDS lists every kind: adding one to ClusterStateErrorKind breaks this line.
const allKindsListed: Exclude<ClusterStateErrorKind, (typeof KINDS)[number]> extends never ? true : false = true;
void allKindsListed;

const base = { version: z.literal(STATE_PROTOCOL_VERSION) };
const req = { ...base, id: z.number().int().nonnegative() };
const path = z.string();
/** A watch id chosen by the child; the parent echoes it in `state.watch`. */
const watch = z.number().int().nonnegative().optional();

export const StateRequestSchema = z.discriminatedUnion('type', [
  z.object({
    ...req,
    type: z.literal('state.create'),
    path,
    data: z.string(),
    mode: z.enum(['persistent', 'ephemeral', 'persistent_sequential', 'ephemeral_sequential']).optional(),
    parents: z.boolean().optional(),
  }),
  z.object({ ...req, type: z.literal('state.get'), path, watch }),
  z.object({ ...req, type: z.literal('state.exists'), path, watch }),
  z.object({ ...req, type: z.literal('state.set'), path, data: z.string(), expectedVersion: z.number().int().optional() }),
  z.object({
    ...req,
    type: z.literal('state.delete'),
    path,
    expectedVersion: z.number().int().optional(),
    recursive: z.boolean().optional(),
  }),
  z.object({ ...req, type: z.literal('state.children'), path, watch }),
  /** Ends the child's session now, rather than when the process exits. */
  z.object({ ...req, type: z.literal('state.close') }),
]);
export type StateRequest = z.infer<typeof StateRequestSchema>;

const statSchema = z.object({
  version: z.number(),
  cversion: z.number(),
  ctime: z.number(),
  mtime: z.number(),
  ephemeral: z.boolean(),
  numChildren: z.number(),
});

export const WireErrorSchema = z.object({
  code: z.string(),
  /** null when the parent hit something that is not a ClusterStateError. */
  kind: z.enum(KINDS).nullable(),
  message: z.string(),
  path: z.string().optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** The result of each request type, as it travels. */
export const StateResultSchema = z.union([
  z.object({ op: z.literal('path'), path: z.string() }),
  z.object({ op: z.literal('node'), data: z.string(), stat: statSchema }),
  z.object({ op: z.literal('stat'), stat: statSchema.nullable() }),
  z.object({ op: z.literal('children'), children: z.array(z.string()) }),
  z.object({ op: z.literal('none') }),
]);
export type StateResult = z.infer<typeof StateResultSchema>;

export const StateReplySchema = z.discriminatedUnion('type', [
  z.object({ ...req, type: z.literal('state.ok'), result: StateResultSchema }),
  z.object({ ...req, type: z.literal('state.error'), error: WireErrorSchema }),
  z.object({
    ...base,
    type: z.literal('state.watch'),
    watch: z.number().int().nonnegative(),
    event: z.object({ type: z.enum(['created', 'deleted', 'changed', 'children']), path: z.string() }),
  }),
  z.object({ ...base, type: z.literal('state.session'), state: z.enum(['connected', 'disconnected', 'expired']) }),
]);
export type StateReply = z.infer<typeof StateReplySchema>;

/** True for messages this channel owns (whether or not they turn out to be well-formed). */
export function isStateMessage(m: unknown): boolean {
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof (m as { type?: unknown }).type === 'string' &&
    (m as { type: string }).type.startsWith(STATE_MESSAGE_PREFIX)
  );
}

/** The request id of a malformed message, when it has a usable one, so the sender can be told at once. */
export function requestIdOf(m: unknown): number | undefined {
  const id = (m as { id?: unknown }).id;
  return typeof id === 'number' && Number.isInteger(id) && id >= 0 ? id : undefined;
}

/** The part of `process` (child side) or a `ChildProcess` (parent side) the proxy uses. */
export interface IpcEndpoint {
  send?: ((message: Serializable, callback?: (error: Error | null) => void) => boolean) | undefined;
  readonly connected?: boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect' | 'exit', listener: () => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'disconnect' | 'exit', listener: () => void): unknown;
}

/** An error as it crosses the channel: a ClusterStateError keeps its kind and path, any other error its code. */
export function toWireError(err: unknown): WireError {
  if (err instanceof ClusterStateError) return { code: err.code, kind: err.kind, message: err.message, path: err.path };
  if (err instanceof HstormError) return { code: err.code, kind: null, message: err.message };
  return { code: 'HSTORM_ERR_INTERNAL', kind: null, message: err instanceof Error ? err.message : String(err) };
}

/** The error the caller sees, rebuilt from the wire. */
export function reviveWireError(e: WireError): Error {
  if (e.kind) return new ClusterStateError(e.kind, e.path ?? '', e.message);
  return new HstormError(e.code, e.message);
}
