/**
 * A state namespace read a key at a time (where StoreKeyValueState holds a
 * whole namespace in memory): what a persistent window keeps its tuples in.
 * Writes wait in memory until the checkpoint's prepare saves them; prepared
 * writes are kept until the commit, so a read sees the newest value; anything
 * else is read from the store's committed entries. Keys and values are the
 * state codec's (values in the values' wire form: a persistent window's
 * tuples come back as they were emitted).
 */
import { TOMBSTONE, type StateEntry, type StateStore } from '../../common/state-store/state-store.js';
import { decodeState, encodeState, encodeStateValue } from './state-codec.js';

const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

export class PagedState {
  /** Written since the last prepare, by encoded key (TOMBSTONE: deleted). */
  private readonly dirty = new Map<string, StateEntry>();
  /** Prepared, not committed yet. */
  private readonly uncommitted = new Map<string, StateEntry>();

  constructor(
    private readonly store: StateStore,
    readonly namespace: string,
  ) {}

  put(key: unknown, value: unknown): void {
    const k = encodeState(key);
    this.dirty.set(latin1(k), [k, encodeStateValue(value)]);
  }

  delete(key: unknown): void {
    const k = encodeState(key);
    this.dirty.set(latin1(k), [k, TOMBSTONE]);
  }

  /** The values of `keys` (undefined where there is none), newest first from memory, then from the store. */
  async get(keys: readonly unknown[]): Promise<unknown[]> {
    const encoded = keys.map((k) => encodeState(k));
    const out: unknown[] = new Array(keys.length);
    const ask: number[] = [];
    encoded.forEach((k, i) => {
      const e = this.dirty.get(latin1(k)) ?? this.uncommitted.get(latin1(k));
      if (e === undefined) ask.push(i);
      else out[i] = e[1].length === 0 ? undefined : decodeState(e[1]);
    });
    if (ask.length > 0) {
      const got = await this.store.get(this.namespace, ask.map((i) => encoded[i]!));
      got.forEach((v, j) => (out[ask[j]!] = v === null ? undefined : this.decode(encoded[ask[j]!]!, v)));
    }
    return out;
  }

  async prepare(txid: number): Promise<void> {
    for (const [k, e] of this.dirty) this.uncommitted.set(k, e);
    this.dirty.clear();
    await this.store.prepare(this.namespace, txid, [...this.uncommitted.values()]);
  }

  async commit(txid: number): Promise<void> {
    await this.store.commit(this.namespace, txid);
    this.uncommitted.clear();
  }

  /** Forgets every write since the last commit and the store's prepare. */
  async rollback(): Promise<void> {
    this.dirty.clear();
    this.uncommitted.clear();
    await this.store.rollback(this.namespace);
  }

  commitStore(txid: number): Promise<void> {
    return this.store.commit(this.namespace, txid);
  }

  /** Decoding failures name where the bytes are; the caller decides what a missing piece means. */
  private decode(key: Uint8Array, bytes: Uint8Array): unknown {
    try {
      return decodeState(bytes);
    } catch (err) {
      throw new Error(`${this.store.locate(this.namespace, key)} does not decode: ${(err as Error).message}`, { cause: err });
    }
  }
}
