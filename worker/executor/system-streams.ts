/**
 * The acking protocol's system streams (Storm's __ack_init/__ack_ack/__ack_fail).
 *   spout → acker  __ack_init [root, xor of the first edges, spout task]
 *   bolt  → acker  __ack_ack  [root, edge ^ ackVal]   /  __ack_fail [root]
 *   acker → spout  __ack_ack  [root]                  /  __ack_fail [root]
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
