/**
 * Storm's AnchoringOutputCollector: in a topology with a stateful bolt, an
 * emit without anchors would break the at-least-once guarantee (a tuple lost
 * with its worker is never replayed, while the state update that made it is
 * rolled back), so it throws, naming the component and stream. `anchors: []`
 * says the author means it (as Storm's explicit-anchors emit allows).
 */
import { EmitError } from '../../common/errors.js';
import type { OutputCollector } from '../components.js';
import type { Tuple } from '../tuple.js';
import { readEmitArgs } from './emit-args.js';

export function requireAnchors(component: string, stream: string, anchors: Tuple | readonly Tuple[] | undefined): void {
  if (anchors !== undefined) return;
  throw new EmitError(
    `component "${component}" emitted on stream "${stream}" without anchors in a topology with a stateful bolt: anchor it to its input (emit(tuple, values), or emit(values, { anchors: tuple })) so a failure replays it, or pass anchors: [] to emit unanchored on purpose`,
    component,
    stream,
  );
}

/**
 * `out` with emits that must carry anchors (any of Storm's emit forms: see emit-args.ts), and `ack` as given (a
 * stateful bolt holds acks; a forwarder passes them).
 */
export function anchoringCollector(component: string, out: OutputCollector, ack: (t: Parameters<OutputCollector['ack']>[0]) => void): OutputCollector {
  return {
    emit: (a: unknown, b?: unknown, c?: unknown): number[] => {
      const e = readEmitArgs('bolt', component, a, b, c);
      requireAnchors(component, e.stream, e.anchors);
      return out.emit(e.values, { stream: e.stream, anchors: e.anchors });
    },
    emitDirect: (task: number, a?: unknown, b?: unknown, c?: unknown): void => {
      const e = readEmitArgs('bolt', component, a, b, c, 'emitDirect');
      requireAnchors(component, e.stream, e.anchors);
      out.emitDirect(task, e.values, { stream: e.stream, anchors: e.anchors });
    },
    ack,
    fail: (t) => out.fail(t),
    resetTimeout: (t) => out.resetTimeout(t),
    reportError: (err) => out.reportError(err),
  };
}
