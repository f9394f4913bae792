/**
 * The acking protocol's system streams (Storm's __ack_init/__ack_ack/__ack_fail).
 *   spout → acker  __ack_init [root, xor of the first edges, spout task]
 *   bolt  → acker  __ack_ack  [root, edge ^ ackVal]   /  __ack_fail [root]
 *   acker → spout  __ack_ack  [root]                  /  __ack_fail [root]
 * Between workers, one tuple may carry several messages of a stream back to
 * back (values [root, val, root, val, …]): see transport/batch-builder.ts.
 * Anything may arrive on a worker's port, so each receiver checks the shape of
 * these values (isAckerInput, isSpoutAckInput) before it trusts them: a wrong
 * type would otherwise throw inside the acker ("Cannot mix BigInt…") and end
 * the worker.
 */
import { Fields } from '../../topology-sdk/fields.js';

export const ACK_INIT = '__ack_init';
export const ACK_ACK = '__ack_ack';
export const ACK_FAIL = '__ack_fail';

export const SYSTEM_FIELDS: ReadonlyMap<string, Fields> = new Map([
  [ACK_INIT, new Fields(['root', 'val', 'task'])],
  [ACK_ACK, new Fields(['root', 'val'])],
  [ACK_FAIL, new Fields(['root'])],
]);

/**
 * The ack protocol's streams, which skip the data queue (acks must never wait behind data). Every other stream — the
 * checkpoint stream `__checkpoint` included, whose tuples must stay in order with the data before and after them —
 * goes through the data queue.
 */
export function isSystemStream(stream: string): boolean {
  return stream.startsWith('__ack_');
}

/**
 * Well-formed values for an acker task: one or more messages of the stream's
 * arity back to back (the transport merges a batch's acks to one acker into
 * one tuple): __ack_init (root, xor, spout task)…, __ack_ack (root, val)…,
 * __ack_fail root….
 */
export function isAckerInput(stream: string, v: readonly unknown[]): boolean {
  switch (stream) {
    case ACK_ACK:
      return v.length >= 2 && v.length % 2 === 0 && allBigInt(v, 0, 1);
    case ACK_INIT:
      if (v.length < 3 || v.length % 3 !== 0 || !allBigInt(v, 0, 3) || !allBigInt(v, 1, 3)) return false;
      for (let i = 2; i < v.length; i += 3) if (!Number.isSafeInteger(v[i]) || (v[i] as number) < 0) return false;
      return true;
    case ACK_FAIL:
      return v.length >= 1 && allBigInt(v, 0, 1);
    default:
      return false;
  }
}

/** Well-formed acker replies for a spout task: one or more roots. */
export function isSpoutAckInput(stream: string, v: readonly unknown[]): boolean {
  return (stream === ACK_ACK || stream === ACK_FAIL) && v.length >= 1 && allBigInt(v, 0, 1);
}

function allBigInt(v: readonly unknown[], from: number, step: number): boolean {
  for (let i = from; i < v.length; i += step) if (typeof v[i] !== 'bigint') return false;
  return true;
}
