/**
 * Storm's KeyValueState: what a stateful bolt's `initState` receives. A map
 * the runtime saves at every checkpoint and gives back — last committed — after
 * a crash, a kill or a resubmit (docs/state.md).
 *
 * Keys are strings, numbers, bigints, booleans, or arrays and plain objects of
 * those (compared by content: `['user', 7]` twice is one key). Values are
 * anything msgpack carries: numbers, strings, booleans, null, arrays, plain
 * objects, Uint8Arrays and typed arrays, Sets, Dates (a Map comes back as a
 * plain object). The value as it is when the checkpoint takes it is what is
 * saved: after changing an object in place, `put` it again so the next
 * checkpoint knows it changed.
 */
export interface KeyValueState<K = unknown, V = unknown> extends Iterable<[K, V]> {
  /** The value of `key`, or undefined when there is none. */
  get(key: K): V | undefined;
  /** The value of `key`, or `defaultValue` when there is none (Storm's `get(key, default)`). */
  get(key: K, defaultValue: V): V;
  /** Sets `key` to `value` (undefined is refused: `delete` the key instead). */
  put(key: K, value: V): void;
  /** Removes `key`; returns the value it had. */
  delete(key: K): V | undefined;
  has(key: K): boolean;
  /** Keys in the state. */
  readonly size: number;
  keys(): IterableIterator<K>;
  values(): IterableIterator<V>;
  entries(): IterableIterator<[K, V]>;
}
