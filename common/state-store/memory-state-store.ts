/**
 * The `memory` state provider (Storm's InMemoryKeyValueStateProvider): the
 * namespaces live in this process, so they die with it — a worker killed or
 * restarted starts its stateful bolts empty. For development and tests; the
 * worker says so in its log when it opens one. Every operation is atomic
 * (nothing else runs between its steps).
 */
import { StateTxidError } from '../errors.js';
import { quoteBytes, type StateEntry, type StateStore, type StateTxids } from './state-store.js';

interface Namespace {
  /** Key bytes as a latin1 string → the entry. */
  committed: Map<string, StateEntry>;
  prepared: { txid: number; changes: StateEntry[] } | null;
  committedTxid: number | null;
}

/** Entries per scan chunk, as Redis's HSCAN hands them out (a few at a time). */
const SCAN_CHUNK = 1000;

const keyOf = (k: Uint8Array): string => Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('latin1');
/** A copy: the caller may reuse its buffers, and what a reader gets must not change under it. */
const copy = (b: Uint8Array): Uint8Array => new Uint8Array(b);

export class MemoryStateStore implements StateStore {
  readonly provider = 'memory';
  readonly where = 'memory (this worker process: not durable)';
  private readonly namespaces = new Map<string, Namespace>();
  private closed = false;

  locate(ns: string, key?: Uint8Array): string {
    return `namespace "${ns}"${key ? ` key ${quoteBytes(key)}` : ''} in the memory state store of this worker`;
  }

  async txids(ns: string): Promise<StateTxids> {
    const n = this.open(ns, false);
    return { committed: n?.committedTxid ?? null, prepared: n?.prepared?.txid ?? null };
  }

  async scan(ns: string, onChunk: (entries: readonly StateEntry[]) => void): Promise<void> {
    const entries = [...(this.open(ns, false)?.committed.values() ?? [])];
    for (let i = 0; i < entries.length; i += SCAN_CHUNK) onChunk(entries.slice(i, i + SCAN_CHUNK).map(([k, v]) => [copy(k), copy(v)]));
  }

  async get(ns: string, keys: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    const n = this.open(ns, false);
    return keys.map((k) => {
      const e = n?.committed.get(keyOf(k));
      return e ? copy(e[1]) : null;
    });
  }

  async size(ns: string): Promise<number> {
    return this.open(ns, false)?.committed.size ?? 0;
  }

  async prepare(ns: string, txid: number, changes: readonly StateEntry[]): Promise<void> {
    this.open(ns, true)!.prepared = { txid, changes: changes.map(([k, v]) => [copy(k), copy(v)]) };
  }

  async commit(ns: string, txid: number): Promise<void> {
    const n = this.open(ns, true)!;
    const p = n.prepared;
    if (p === null) return;
    if (p.txid !== txid) throw new StateTxidError(`${this.locate(ns)}: commit of transaction ${txid}, but transaction ${p.txid} is the one prepared`);
    for (const [k, v] of p.changes) {
      if (v.length === 0) n.committed.delete(keyOf(k));
      else n.committed.set(keyOf(k), [k, v]);
    }
    n.committedTxid = txid;
    n.prepared = null;
  }

  async rollback(ns: string): Promise<void> {
    const n = this.open(ns, false);
    if (n) n.prepared = null;
  }

  async write(ns: string, entries: readonly StateEntry[]): Promise<void> {
    const n = this.open(ns, true)!;
    for (const [k, v] of entries) {
      if (v.length === 0) n.committed.delete(keyOf(k));
      else n.committed.set(keyOf(k), [copy(k), copy(v)]);
    }
  }

  async drop(ns: string): Promise<void> {
    this.open(ns, false);
    this.namespaces.delete(ns);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.namespaces.clear();
  }

  private open(ns: string, create: boolean): Namespace | undefined {
    if (this.closed) throw new Error('the memory state store is closed');
    let n = this.namespaces.get(ns);
    if (!n && create) {
      n = { committed: new Map(), prepared: null, committedTxid: null };
      this.namespaces.set(ns, n);
    }
    return n;
  }
}
