/**
 * Stream ids that start with "__" are the runtime's; a user's cannot
 * (topology-sdk/output-declarer.ts): load reports (`__load`), tick tuples
 * (`__tick`), and Storm's ack-protocol streams `__ack_init`, `__ack_ack`,
 * `__ack_fail` — which hstorm moves as ack messages (ack-messages.ts), never
 * as tuples, so a tuple that claims one of them was forged.
 */
export function isSystemStream(stream: string): boolean {
  return stream.startsWith('__');
}
