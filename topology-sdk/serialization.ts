/**
 * Values of the author's own classes between workers (Storm's
 * `topology.kryo.register`): a class registered with
 * `TopologyBuilder.registerSerialization(Point)` arrives as a Point — its
 * prototype and methods — in a task of another worker; an instance of a class
 * not registered is refused at emit, naming it, in the same worker or another.
 *
 * Without a serializer an instance travels as its own enumerable fields
 * (Kryo's FieldSerializer), and is rebuilt without calling its constructor;
 * its fields must themselves be values that can travel. A serializer turns an
 * instance into such a value and back (a Kryo Serializer), for classes with
 * private state (`#fields`), getters or invariants the constructor keeps.
 *
 * @example
 * b.registerSerialization(Point);
 * b.registerSerialization(Rankings, { write: (r) => r.toJSON(), read: (d) => Rankings.from(d as RankingsData) });
 */

export type { Serializer, ClassOf, SerializationRegistration } from '../common/values/serialization-types.js';
