/**
 * A state store that can be taken down: every call rejects (StateStoreError, as
 * the Redis provider's do while Redis is unreachable) while `down` is set,
 * otherwise the wrapped store answers. For unit tests of what the checkpoint
 * protocol does when its store fails; the integration tests stop a real Redis.
 */
import { StateStoreError } from '../../common/errors.js';
import { MemoryStateStore, type StateEntry, type StateStore, type StateTxids } from '../../common/state-store/index.js';

export class FlakyStateStore implements StateStore {
  readonly provider = 'memory';
  readonly where = 'a flaky test store';
  down = false;
  calls: string[] = [];

  constructor(readonly inner: StateStore = new MemoryStateStore()) {}

  locate(ns: string, key?: Uint8Array): string {
    return this.inner.locate(ns, key);
  }

  txids(ns: string): Promise<StateTxids> {
    return this.guard('txids', () => this.inner.txids(ns));
  }

  scan(ns: string, onChunk: (entries: readonly StateEntry[]) => void): Promise<void> {
    return this.guard('scan', () => this.inner.scan(ns, onChunk));
  }

  get(ns: string, keys: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    return this.guard('get', () => this.inner.get(ns, keys));
  }

  size(ns: string): Promise<number> {
    return this.guard('size', () => this.inner.size(ns));
  }

  prepare(ns: string, txid: number, changes: readonly StateEntry[]): Promise<void> {
    return this.guard(`prepare ${txid}`, () => this.inner.prepare(ns, txid, changes));
  }

  commit(ns: string, txid: number): Promise<void> {
    return this.guard(`commit ${txid}`, () => this.inner.commit(ns, txid));
  }

  rollback(ns: string): Promise<void> {
    return this.guard('rollback', () => this.inner.rollback(ns));
  }

  write(ns: string, entries: readonly StateEntry[]): Promise<void> {
    return this.guard('write', () => this.inner.write(ns, entries));
  }

  drop(ns: string): Promise<void> {
    return this.guard('drop', () => this.inner.drop(ns));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    this.calls.push(what);
    if (this.down) throw new StateStoreError(`${what}: the store is down`, this.where);
    return fn();
  }
}
