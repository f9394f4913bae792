/**
 * Where stateful bolts keep their state: one small interface, an in-memory
 * and a Redis implementation, one contract suite run over both
 * (test/unit/common/state-store-contract.ts), as the cluster-state stores are.
 *
 * A store holds namespaces (one per stateful task, hstorm's
 * `<topology>:<component>:<task index>`). Each namespace is a map of
 * committed entries — opaque bytes to bytes, encoded by the SDK — plus at most
 * one prepared transaction and the txids of the last commit and prepare:
 * Storm's State (prepareCommit / commit / rollback) as a storage contract.
 *
 * - `prepare(ns, txid, changes)` saves the changes under `txid`, replacing any
 *   prepared transaction (the caller passes everything not committed yet, so a
 *   stale prepare is never needed).
 * - `commit(ns, txid)` applies the prepared changes to the committed entries
 *   atomically: a reader sees the entries before it or after it, never half. A
 *   commit with nothing prepared is a no-op (a retried commit after a crash:
 *   roll forward twice is once); with another txid prepared it throws.
 * - An empty value in `changes` deletes its key at the commit (no encoded
 *   value is empty: it is the tombstone).
 */
export type StateProviderName = 'memory' | 'redis';

/** A key and a value, as the SDK encoded them. */
export type StateEntry = [key: Uint8Array, value: Uint8Array];

/** A namespace's transaction ids: null when it never committed or has nothing prepared. */
export interface StateTxids {
  committed: number | null;
  prepared: number | null;
}

/** What a state store is given at start. */
export interface StateStoreSettings {
  provider: StateProviderName;
  /** Redis: `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** An environment variable holding the URL, read when the store opens (it wins over `url`); null: `url`. */
  urlEnv: string | null;
  /** Put before every namespace (Redis key prefix). */
  keyPrefix: string;
  connectTimeoutMs: number;
  /** A command that takes longer fails (a checkpoint then fails and is retried). */
  commandTimeoutMs: number;
}

export interface StateStore {
  readonly provider: StateProviderName;
  /** The store in words, for logs and errors: `redis://127.0.0.1:6379 (prefix "hstorm:state:")`. */
  readonly where: string;
  /** Where one entry of a namespace lives, in words an operator can act on (the Redis key and field). */
  locate(ns: string, key?: Uint8Array): string;
  txids(ns: string): Promise<StateTxids>;
  /** Every committed entry, a chunk at a time (a large namespace is never read in one reply). */
  scan(ns: string, onChunk: (entries: readonly StateEntry[]) => void): Promise<void>;
  /** Committed values of `keys`, in order; null where there is none. */
  get(ns: string, keys: readonly Uint8Array[]): Promise<(Uint8Array | null)[]>;
  /** Committed entries in the namespace. */
  size(ns: string): Promise<number>;
  prepare(ns: string, txid: number, changes: readonly StateEntry[]): Promise<void>;
  commit(ns: string, txid: number): Promise<void>;
  /** Drops the prepared transaction, if any. */
  rollback(ns: string): Promise<void>;
  /** Writes entries committed at once, outside any transaction (a component that manages its own state: the checkpoint spout). */
  write(ns: string, entries: readonly StateEntry[]): Promise<void>;
  /** Removes a namespace: entries, prepared data and txids. */
  drop(ns: string): Promise<void>;
  close(): Promise<void>;
}

/** The tombstone: a change with this value deletes its key at the commit. */
export const TOMBSTONE: Uint8Array = new Uint8Array(0);

/**
 * Bytes as redis-cli prints and reads them in double quotes: printable ASCII as is (with `"` and `\` escaped),
 * anything else as `\xHH` — so an operator can paste it into `redis-cli HDEL key "…"`.
 */
export function quoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}
