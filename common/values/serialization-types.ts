/**
 * The shape of a class registration (TopologyBuilder.registerSerialization,
 * topology-sdk/serialization.ts says what it does for an author): here, in
 * common/, because the value codec that uses it is shared by the worker (tuples
 * on the wire) and the SDK (state values in the store).
 */
/** Turns an instance into a value that can travel (plain data, arrays, Maps, other registered classes) and back. */
export interface Serializer<T = unknown> {
  write(value: T): unknown;
  read(data: unknown): T;
}

/** A class constructor (abstract or not, any parameters), as registerSerialization takes it: identified, never called. */
export type ClassOf<T> = abstract new (...args: never[]) => T;

export interface SerializationRegistration {
  /** The name the value travels under (the class's name unless given): the same in every worker. */
  name: string;
  Class: ClassOf<unknown>;
  /** null: the instance's own enumerable fields. */
  serializer: Serializer | null;
}
