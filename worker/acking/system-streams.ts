/**
 * Stream ids that start with "__" are the runtime's; a user's cannot
 * (topology-sdk/output-declarer.ts): load reports (`__load`), tick tuples
 * (`__tick`), and Storm's ack-protocol streams `__ack_init`, `__ack_ack`,
 * `__ack_fail` — which hstorm moves as ack messages (ack-messages.ts), never
 * as tuples, so a tuple that claims one of them was forged. The one runtime
 * stream that travels as tuples is the checkpoint stream `__checkpoint` of a
 * stateful topology: its tuples go through the data queue, in order with the
 * data before and after them (the barrier a bolt saves its state at).
 */
import { CHECKPOINT_STREAM } from '../../common/topology-def.js';

export function isSystemStream(stream: string): boolean {
  return stream.startsWith('__') && stream !== CHECKPOINT_STREAM;
}
