/**
 * Storm's emit overloads, read into one shape. Java picks an overload by the
 * static types of its arguments; JavaScript has only the values, so each form
 * is told apart by what its arguments are:
 *
 * | collector | form | told by |
 * | --- | --- | --- |
 * | every one | `emit(values)`, `emit(values, options)` | an array first; then nothing or an options object |
 * | every one | `emit(streamId, values, …)` | a string first |
 * | bolt | `emit(anchor or anchors, values)`, `emit(streamId, anchors, values)` | a tuple, or an array followed by an array |
 * | spout | `emit(values, messageId)`, `emit(streamId, values, messageId)` | anything after the values that is not an options object |
 *
 * An options object is a plain object whose keys are among `stream`,
 * `anchors` and `messageId` (a spout's message id that is such an object
 * must be given as `{ messageId }`). A call that fits no form is an EmitError
 * naming the component and what it was given — never a tuple on the wrong
 * stream. The direct forms take the task id first and are read the same way.
 */
import { EmitError } from '../../common/errors.js';
import { DEFAULT_STREAM } from '../../common/topology-def.js';
import type { EmitOptions, Values } from '../components.js';
import type { Tuple } from '../tuple.js';

export interface EmitArgs {
  stream: string;
  values: Values;
  anchors: readonly Tuple[] | Tuple | undefined;
  messageId: unknown;
}

const OPTION_KEYS: Readonly<Record<string, true>> = { stream: true, anchors: true, messageId: true };

/** A plain object of emit options (only `stream`, `anchors`, `messageId`). */
export function isEmitOptions(v: unknown): v is EmitOptions {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) if (OPTION_KEYS[k] !== true) return false;
  return true;
}

/** A tuple the runtime handed the component (any Tuple: the collector checks it is one of its own where it matters). */
export function isTuple(v: unknown): v is Tuple {
  return typeof v === 'object' && v !== null && typeof (v as Tuple).getSourceComponent === 'function' && Array.isArray((v as Tuple).values);
}

/** The kinds of collector, each with its own forms. */
export type CollectorKind = 'bolt' | 'basic' | 'spout';

const FORMS: Record<CollectorKind, string> = {
  bolt: 'emit(values), emit(values, { stream, anchors }), emit(streamId, values), emit(anchor | anchors, values), emit(streamId, anchor | anchors, values)',
  basic: 'emit(values), emit(values, { stream }), emit(streamId, values)',
  spout: 'emit(values), emit(values, { stream, messageId }), emit(values, messageId), emit(streamId, values), emit(streamId, values, messageId)',
};

/**
 * Reads `emit(a, b, c)` (or, for emitDirect, the arguments after the task id) of a collector of `kind`; throws an
 * EmitError for a call that fits none of its forms. `a`, `b`, `c` are what the caller passed (undefined when absent).
 */
export function readEmitArgs(kind: CollectorKind, component: string, a: unknown, b: unknown, c: unknown, call = 'emit'): EmitArgs {
  if (Array.isArray(a) && !(kind === 'bolt' && Array.isArray(b))) {
    // emit(values), emit(values, options), spout: emit(values, messageId)
    if (c !== undefined) throw notAForm(kind, component, call, [a, b, c]);
    if (b === undefined) return { stream: DEFAULT_STREAM, values: a, anchors: undefined, messageId: undefined };
    if (isEmitOptions(b)) return fromOptions(kind, component, call, a, b);
    if (kind === 'spout') return { stream: DEFAULT_STREAM, values: a, anchors: undefined, messageId: b };
    throw notAForm(kind, component, call, [a, b]);
  }
  if (typeof a === 'string') {
    // emit(streamId, values), spout: emit(streamId, values, messageId), bolt: emit(streamId, anchors, values)
    if (Array.isArray(b) && c === undefined) return { stream: a, values: b, anchors: undefined, messageId: undefined };
    if (kind === 'spout' && Array.isArray(b)) return { stream: a, values: b, anchors: undefined, messageId: c };
    if (kind === 'bolt' && Array.isArray(c) && isAnchors(b)) return { stream: a, values: c, anchors: b, messageId: undefined };
    throw notAForm(kind, component, call, [a, b, c]);
  }
  // bolt: emit(anchor, values), emit(anchors, values)
  if (kind === 'bolt' && Array.isArray(b) && c === undefined && isAnchors(a)) return { stream: DEFAULT_STREAM, values: b, anchors: a, messageId: undefined };
  throw notAForm(kind, component, call, [a, b, c]);
}

function fromOptions(kind: CollectorKind, component: string, call: string, values: Values, o: EmitOptions): EmitArgs {
  const stream = o.stream ?? DEFAULT_STREAM;
  if (typeof stream !== 'string') throw new EmitError(`${call} from "${component}": options.stream must be a string, got ${describeArg(stream)}`, component, String(stream));
  if (kind !== 'bolt' && o.anchors !== undefined) throw new EmitError(`${call} from "${component}": anchors are for a Bolt's collector (a ${kind === 'spout' ? 'spout tracks with a messageId' : "BasicBolt's emits are anchored to its input already"})`, component, stream);
  if (kind !== 'spout' && o.messageId !== undefined) throw new EmitError(`${call} from "${component}": a messageId is for a spout's collector (a bolt anchors its emits to its input tuples)`, component, stream);
  if (o.anchors !== undefined && !isAnchors(o.anchors)) throw new EmitError(`${call} from "${component}": options.anchors must be a tuple or an array of tuples the bolt received, got ${describeArg(o.anchors)}`, component, stream);
  return { stream, values, anchors: o.anchors, messageId: o.messageId };
}

function isAnchors(v: unknown): v is Tuple | readonly Tuple[] {
  if (Array.isArray(v)) return v.every(isTuple);
  return isTuple(v);
}

function notAForm(kind: CollectorKind, component: string, call: string, args: unknown[]): EmitError {
  while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
  const got = args.map(describeArg).join(', ');
  const stream = typeof args[0] === 'string' ? args[0] : DEFAULT_STREAM;
  const forms = call === 'emit' ? FORMS[kind] : FORMS[kind].replaceAll('emit(', `${call}(taskId, `);
  return new EmitError(`${call} from "${component}" was called as ${call}(${got}), which is none of its forms: ${forms}`, component, stream);
}

function describeArg(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length > 0 && v.every(isTuple) ? `[${v.length} tuple(s)]` : `array(${v.length})`;
  if (isTuple(v)) return 'a tuple';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'object') return `an object (${(v as object).constructor?.name ?? 'no prototype'})`;
  return typeof v === 'number' || typeof v === 'boolean' ? `${typeof v} ${String(v)}` : typeof v;
}
