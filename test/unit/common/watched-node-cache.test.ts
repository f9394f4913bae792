/**
 * The watched read-through cache (common/cluster-state/watched-node-cache.ts)
 * over the in-memory store: an unchanged node costs no store read; another
 * session's change is seen once its watch fires; the cache's own session's
 * write is seen at once; a missing node is cached as missing and seen when
 * created; a read in flight when its node changes does not cache the old
 * value; concurrent asks share one read; a session expiry drops everything.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { ClusterState } from '../../../common/cluster-state.js';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { WatchedNodeCache } from '../../../common/cluster-state/watched-node-cache.js';
import { waitFor } from '../../helpers/wait-for.js';

const schema = z.object({ v: z.number() });
const json = (v: number) => Buffer.from(JSON.stringify({ v }));

/** A session that counts the reads that reach the store. */
function counted(state: ClusterState): { state: ClusterState; reads: () => number } {
  let n = 0;
  const s = Object.create(state) as ClusterState;
  s.get = (...a: Parameters<ClusterState['get']>) => (n++, state.get(...a));
  s.children = (...a: Parameters<ClusterState['children']>) => (n++, state.children(...a));
  s.exists = (...a: Parameters<ClusterState['exists']>) => (n++, state.exists(...a));
  return { state: s, reads: () => n };
}

describe('WatchedNodeCache', () => {
  it('answers an unchanged node from memory, and reads again once another session changed it', async () => {
    const store = new InMemoryClusterStore();
    const writer = store.session();
    await writer.create('/a', json(1));
    const { state, reads } = counted(store.session());
    const cache = new WatchedNodeCache(state);
    assert.deepEqual((await cache.readJson('/a', schema))?.value, { v: 1 });
    const after = reads();
    for (let i = 0; i < 100; i++) assert.deepEqual((await cache.readJson('/a', schema))?.value, { v: 1 });
    assert.equal(reads(), after, 'no read reached the store');
    await writer.set('/a', json(2));
    await waitFor('the change seen', async () => (await cache.readJson('/a', schema))?.value.v === 2, 10_000, 5);
    assert.ok(cache.counts.invalidations >= 1);
  });

  it("sees its own session's write at once (the watch fires before the write resolves)", async () => {
    const state = new InMemoryClusterStore().session();
    await state.create('/a', json(1));
    const cache = new WatchedNodeCache(state);
    await cache.get('/a');
    await state.set('/a', json(2));
    assert.deepEqual((await cache.readJson('/a', schema))?.value, { v: 2 });
    await state.delete('/a');
    assert.equal(await cache.get('/a'), null);
  });

  it('caches a missing node and a missing directory as such, and sees them appear', async () => {
    const store = new InMemoryClusterStore();
    const writer = store.session();
    const { state, reads } = counted(store.session());
    const cache = new WatchedNodeCache(state);
    assert.equal(await cache.get('/d/x'), null);
    assert.deepEqual(await cache.children('/d'), []);
    const after = reads();
    assert.equal(await cache.get('/d/x'), null);
    assert.deepEqual(await cache.children('/d'), []);
    assert.equal(reads(), after);
    await writer.create('/d/x', json(3), { parents: true });
    await waitFor('the node seen', async () => (await cache.readJson('/d/x', schema))?.value.v === 3, 10_000, 5);
    await waitFor('the child seen', async () => (await cache.children('/d')).includes('x'), 10_000, 5);
    await writer.create('/d/y', json(4));
    await waitFor('the new child seen', async () => (await cache.children('/d')).join() === 'x,y', 10_000, 5);
  });

  it('shares one read between concurrent asks, and keeps nothing a change overtook', async () => {
    const store = new InMemoryClusterStore();
    const writer = store.session();
    await writer.create('/a', json(1));
    const inner = store.session();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let reads = 0;
    const slow = Object.create(inner) as ClusterState;
    slow.get = async (...a: Parameters<ClusterState['get']>) => {
      reads++;
      const got = await inner.get(...a);
      await gate;
      return got;
    };
    const cache = new WatchedNodeCache(slow);
    const both = Promise.all([cache.get('/a'), cache.get('/a')]);
    // The read got v1 and its watch is set; the node changes before the read returns.
    await waitFor('the read started', () => reads === 1, 10_000, 5);
    await writer.set('/a', json(2));
    await waitFor('the change delivered', () => cache.counts.invalidations >= 1, 10_000, 5);
    release();
    const [x, y] = await both;
    assert.equal(x, y);
    assert.equal(reads, 1, 'one read for two asks');
    assert.deepEqual((await cache.readJson('/a', schema))?.value, { v: 2 }, 'the overtaken v1 was not kept');
  });

  it('drops everything when the session expires, and reads afresh', async () => {
    const store = new InMemoryClusterStore();
    const writer = store.session();
    await writer.create('/a', json(1));
    const session = store.session();
    const cache = new WatchedNodeCache(session);
    await cache.get('/a');
    await cache.children('/');
    assert.ok(store.expireSession(session.sessionId));
    await writer.set('/a', json(5));
    await waitFor('a fresh read after the expiry', async () => (await cache.readJson('/a', schema))?.value.v === 5, 10_000, 5);
  });

  it('raises CORRUPT for a corrupt node every time it is asked, without reading it again', async () => {
    const store = new InMemoryClusterStore();
    const { state, reads } = counted(store.session());
    await state.create('/bad', Buffer.from('{ nope'));
    const cache = new WatchedNodeCache(state);
    await assert.rejects(cache.readJson('/bad', schema), /does not hold valid JSON/);
    const after = reads();
    await assert.rejects(cache.readJson('/bad', schema), /does not hold valid JSON/);
    assert.equal(reads(), after);
  });

  it('serves a stale ask the value before the latest change at once, reads the new one meanwhile, and never serves a deleted node', async () => {
    const store = new InMemoryClusterStore();
    const writer = store.session();
    await writer.create('/s', json(1));
    const cache = new WatchedNodeCache(store.session());
    assert.deepEqual((await cache.readJson('/s', schema, { stale: true }))?.value, { v: 1 });
    await writer.set('/s', json(2));
    await waitFor('the change delivered', () => cache.counts.invalidations >= 1, 10_000, 5);
    const reads = cache.counts.reads;
    // At once, without waiting for the store: the previous value; the new one is being read.
    assert.deepEqual((await cache.readJson('/s', schema, { stale: true }))?.value, { v: 1 });
    assert.equal(cache.counts.reads, reads + 1, 'a read started in the background');
    await waitFor('the new value kept', async () => (await cache.readJson('/s', schema, { stale: true }))?.value.v === 2, 10_000, 5);
    // A fresh ask never gets the stale value.
    await writer.set('/s', json(3));
    await waitFor('the change delivered', () => cache.counts.invalidations >= 2, 10_000, 5);
    assert.deepEqual((await cache.readJson('/s', schema))?.value, { v: 3 });
    await writer.delete('/s');
    await waitFor('the deletion seen', async () => (await cache.get('/s', { stale: true })) === null, 10_000, 5);
  });
});
