/**
 * Storm's AnchoringOutputCollector: in a topology with a stateful bolt, an
 * emit without anchors would break the at-least-once guarantee (a tuple lost
 * with its worker is never replayed, while the state update that made it is
 * rolled back), so it throws, naming the component and stream. `anchors: []`
 * says the author means it (as Storm's explicit-anchors emit allows).
 */
import { EmitError } from '../../common/errors.js';
import { DEFAULT_STREAM } from '../../common/topology-def.js';
import type { EmitOptions, OutputCollector } from '../components.js';

export function requireAnchors(component: string, options: EmitOptions | undefined): void {
  if (options?.anchors !== undefined) return;
  const stream = options?.stream ?? DEFAULT_STREAM;
  throw new EmitError(
    `component "${component}" emitted on stream "${stream}" without anchors in a topology with a stateful bolt: anchor it to its input (emit(values, { anchors: tuple })) so a failure replays it, or pass anchors: [] to emit unanchored on purpose`,
    component,
    stream,
  );
}

/** `out` with emits that must carry anchors, and `ack` as given (a stateful bolt holds acks; a forwarder passes them). */
export function anchoringCollector(component: string, out: OutputCollector, ack: (t: Parameters<OutputCollector['ack']>[0]) => void): OutputCollector {
  return {
    emit: (values, options) => {
      requireAnchors(component, options);
      return out.emit(values, options);
    },
    emitDirect: (task, values, options) => {
      requireAnchors(component, options);
      out.emitDirect(task, values, options);
    },
    ack,
    fail: (t) => out.fail(t),
    reportError: (err) => out.reportError(err),
  };
}
