/**
 * The KeyValueState a stateful bolt gets, kept whole in memory and saved to a
 * state store namespace (common/state-store/) by the checkpoint protocol:
 *
 * - reads and writes are Map operations (no store round trip per tuple);
 *   `put`/`delete` mark the key dirty;
 * - `prepare(txid)` encodes the dirty keys — the state as it is at that
 *   instant — into the changes not committed yet, and saves all of those as
 *   the transaction's prepare (so a prepare that follows a failed one still
 *   carries its changes);
 * - `commit(txid)` makes the store apply them; `rollback()` drops them and
 *   reloads the last committed entries, forgetting every change since.
 *
 * Values are checked at `put` and saved in the values' wire form
 * (state-codec.ts), so they come back after a restart as they were put: a
 * Map a Map, an instance of a registered class an instance of it. A value
 * that cannot be saved is a StateValueError at `put`, in the bolt's execute.
 *
 * An entry that does not decode is left out and reported (StateCorruptError,
 * naming the store key, the component and the task), never thrown at the
 * bolt: one bad entry must not keep a task from starting.
 */
import { StateCorruptError, StateValueError } from '../../common/errors.js';
import { ValueRefusal } from '../../common/values/value-types.js';
import { TOMBSTONE, quoteBytes, type StateEntry, type StateStore } from '../../common/state-store/state-store.js';
import type { KeyValueState } from '../state.js';
import { checkStateValue, decodeState, encodeState, encodeStateValue, mapKey } from './state-codec.js';

export interface StateOwner {
  component: string;
  task: number;
  /** Called for each entry left out because it does not decode. */
  onCorrupt(err: StateCorruptError): void;
}

const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

export class StoreKeyValueState<K = unknown, V = unknown> implements KeyValueState<K, V> {
  private view = new Map<unknown, [K, V]>();
  /** Map key → state key, of keys put or deleted since the last prepare. */
  private readonly dirty = new Map<unknown, K>();
  /** Encoded changes prepared but not committed yet, by encoded key. */
  private readonly uncommitted = new Map<string, StateEntry>();
  /** Entries left out of the last load because they did not decode. */
  corruptEntries = 0;

  constructor(
    private readonly store: StateStore,
    readonly namespace: string,
    private readonly owner: StateOwner,
  ) {}

  // ── KeyValueState ─────────────────────────────────────────────────────────

  get(key: K): V | undefined;
  get(key: K, defaultValue: V): V;
  get(key: K, defaultValue?: V): V | undefined {
    const e = this.view.get(mapKey(key));
    return e === undefined ? defaultValue : e[1];
  }

  put(key: K, value: V): void {
    if (value === undefined) throw new TypeError('KeyValueState.put: undefined is not a value; use delete(key) to remove a key');
    const mk = mapKey(key);
    this.checked(key, () => checkStateValue(value), 'cannot be saved');
    this.view.set(mk, [key, value]);
    this.dirty.set(mk, key);
  }

  delete(key: K): V | undefined {
    const mk = mapKey(key);
    const e = this.view.get(mk);
    if (e === undefined) return undefined;
    this.view.delete(mk);
    this.dirty.set(mk, key);
    return e[1];
  }

  has(key: K): boolean {
    return this.view.has(mapKey(key));
  }

  get size(): number {
    return this.view.size;
  }

  *keys(): IterableIterator<K> {
    for (const [k] of this.view.values()) yield k;
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.view.values()) yield v;
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [k, v] of this.view.values()) yield [k, v];
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  // ── the checkpoint protocol (the runtime's, not the bolt's) ──────────────

  /** Replaces what is in memory with the namespace's committed entries. */
  async load(): Promise<void> {
    const view = new Map<unknown, [K, V]>();
    let corrupt = 0;
    await this.store.scan(this.namespace, (chunk) => {
      for (const [kb, vb] of chunk) {
        const e = this.decode(kb, vb);
        if (e === null) corrupt++;
        else view.set(mapKey(e[0]), e);
      }
    });
    this.view = view;
    this.dirty.clear();
    this.uncommitted.clear();
    this.corruptEntries = corrupt;
  }

  async prepare(txid: number): Promise<void> {
    for (const [mk, key] of this.dirty) {
      const e = this.view.get(mk);
      const k = encodeState(key);
      this.uncommitted.set(latin1(k), [k, e === undefined ? TOMBSTONE : this.encodeValue(key, e[1])]);
    }
    this.dirty.clear();
    await this.store.prepare(this.namespace, txid, [...this.uncommitted.values()]);
  }

  async commit(txid: number): Promise<void> {
    await this.store.commit(this.namespace, txid);
    this.uncommitted.clear();
  }

  async rollback(): Promise<void> {
    await this.store.rollback(this.namespace);
    await this.load();
  }

  /** Store calls outside the loaded view (a task that has not loaded yet rolls its namespace back or forward). */
  rollbackStore(): Promise<void> {
    return this.store.rollback(this.namespace);
  }

  commitStore(txid: number): Promise<void> {
    return this.store.commit(this.namespace, txid);
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private encodeValue(key: K, value: V): Uint8Array {
    // Checked at put; changed in place since, it may have become what cannot be saved.
    return this.checked(key, () => encodeStateValue(value), 'cannot be saved (changed in place since its put?)');
  }

  /** Runs `f`, turning a value's refusal into a StateValueError naming the component, the task and the key. */
  private checked<T>(key: K, f: () => T, why: string): T {
    try {
      return f();
    } catch (err) {
      const { component, task } = this.owner;
      const where = `KeyValueState of "${component}" task ${task}: the value of key ${describeKey(key)}`;
      if (err instanceof ValueRefusal) {
        throw new StateValueError(`${where} ${why}: it is ${err.message}; ${err.hint}`, component, task, { path: err.path, type: err.what });
      }
      throw new StateValueError(`${where} ${why}: ${(err as Error)?.message ?? String(err)}`, component, task, { path: '', type: 'unknown' });
    }
  }

  private decode(kb: Uint8Array, vb: Uint8Array): [K, V] | null {
    let key: K;
    try {
      key = decodeState(kb) as K;
      mapKey(key);
    } catch (err) {
      this.reportCorrupt(kb, 'its key', err);
      return null;
    }
    try {
      return [key, decodeState(vb) as V];
    } catch (err) {
      this.reportCorrupt(kb, `the value of key ${describeKey(key)} (${vb.length} bytes: ${quoteBytes(vb.subarray(0, 16))}${vb.length > 16 ? '…' : ''})`, err);
      return null;
    }
  }

  private reportCorrupt(kb: Uint8Array, what: string, err: unknown): void {
    const where = this.store.locate(this.namespace, kb);
    const { component, task } = this.owner;
    this.owner.onCorrupt(
      new StateCorruptError(
        `state of "${component}" task ${task}: ${where}: ${what} does not decode (${(err as Error)?.message ?? String(err)}); the entry is left out of the bolt's state and left in the store — delete or fix it (see docs/state.md, "Inspecting state")`,
        where,
        component,
        task,
        { cause: err },
      ),
    );
  }
}

/** A key for a message: JSON where it has one, bigints with their n. */
function describeKey(key: unknown): string {
  if (typeof key === 'bigint') return `${key}n`;
  try {
    return JSON.stringify(key) ?? String(key);
  } catch {
    return String(key);
  }
}
