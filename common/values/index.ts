/**
 * Values as hstorm carries them, in tuples between workers and in state in
 * the store alike: what may be emitted or put (value-types.ts: checked, and a
 * value that cannot travel refused naming where it sits), and the wire form
 * that makes Maps, -0, registered classes and `__proto__` keys arrive as they
 * left (wire-form.ts, msgpackr extensions). Shared by the worker (frames) and
 * the SDK (the state codec), hence here.
 */
export { ValueTypes, ValueRefusal, inspectValues, NO_VALUE_TYPES, MAX_DEPTH } from './value-types.js';
export { toWireForm, registerValueTypes, processValueTypes, decodingWith } from './wire-form.js';
export type { Serializer, ClassOf, SerializationRegistration } from './serialization-types.js';
