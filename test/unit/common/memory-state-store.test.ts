/** The state-store contract on the memory provider, plus what is its own: the data lives in one process and dies with it. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MemoryStateStore, type StateStore } from '../../../common/state-store/index.js';
import { stateStoreContract } from './state-store-contract.js';

stateStoreContract('memory', async () => {
  const store = new MemoryStateStore();
  // The memory provider's data is its process's: a second handle is the same store, whose close leaves it open.
  const second = async (): Promise<StateStore> => Object.assign(Object.create(store) as StateStore, { close: async () => undefined });
  return { store, second, ns: `t-${randomUUID()}`, cleanup: () => store.close() };
});

describe('MemoryStateStore', () => {
  it('says it is not durable, and refuses calls once closed', async () => {
    const store = new MemoryStateStore();
    assert.match(store.where, /not durable/);
    await store.close();
    await assert.rejects(store.size('x'), /closed/);
  });

  it('keeps no reference to the caller\'s buffers', async () => {
    const store = new MemoryStateStore();
    const k = new Uint8Array([1]);
    const v = new Uint8Array([2]);
    await store.prepare('n', 1, [[k, v]]);
    v[0] = 9;
    await store.commit('n', 1);
    const [got] = await store.get('n', [k]);
    assert.deepEqual([...got!], [2]);
    got![0] = 7;
    assert.deepEqual([...(await store.get('n', [k]))[0]!], [2]);
  });
});
