/**
 * The acking protocol's system streams (Storm's __ack_init/__ack_ack/__ack_fail).
 *   spout → acker  __ack_init [root, xor of the first edges, spout task]
 *   bolt  → acker  __ack_ack  [root, edge ^ ackVal]   /  __ack_fail [root]
 *   acker → spout  __ack_ack  [root]                  /  __ack_fail [root]
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

export function isSystemStream(stream: string): boolean {
  return stream.startsWith('__');
}

/** A well-formed message for an acker task. */
export function isAckerInput(stream: string, v: readonly unknown[]): boolean {
  switch (stream) {
    case ACK_ACK:
      return v.length === 2 && typeof v[0] === 'bigint' && typeof v[1] === 'bigint';
    case ACK_INIT:
      return v.length === 3 && typeof v[0] === 'bigint' && typeof v[1] === 'bigint' && Number.isSafeInteger(v[2]) && (v[2] as number) >= 0;
    case ACK_FAIL:
      return v.length === 1 && typeof v[0] === 'bigint';
    default:
      return false;
  }
}

/** A well-formed acker reply for a spout task. */
export function isSpoutAckInput(stream: string, v: readonly unknown[]): boolean {
  return (stream === ACK_ACK || stream === ACK_FAIL) && v.length === 1 && typeof v[0] === 'bigint';
}
