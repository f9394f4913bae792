/** The cluster-state contract on the in-memory store, plus what only the store itself offers. */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { isStateError, type ClusterState } from '../../../common/cluster-state.js';
import { InMemoryClusterStore, InMemorySession, createJson, readJson, writeJson } from '../../../common/cluster-state/index.js';
import { clusterStateContract } from './cluster-state-contract.js';

clusterStateContract('in-memory', async () => {
  const store = new InMemoryClusterStore();
  const clients: ClusterState[] = [];
  return {
    client: async () => {
      const s = store.session();
      clients.push(s);
      return s;
    },
    expire: async (c) => {
      assert.ok(c instanceof InMemorySession);
      assert.equal(store.expireSession(c.sessionId), true);
    },
    cleanup: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
});

describe('InMemoryClusterStore', () => {
  it('gives each session its own id, and a new one after expiry', async () => {
    const store = new InMemoryClusterStore();
    const a = store.session();
    const b = store.session();
    assert.notEqual(a.sessionId, b.sessionId);
    const before = a.sessionId;
    store.expireSession(before);
    assert.notEqual(a.sessionId, before);
    assert.deepEqual(store.sessionIds().sort(), [a.sessionId, b.sessionId].sort());
    await a.close();
    assert.deepEqual(store.sessionIds(), [b.sessionId]);
    assert.equal(store.expireSession(before), false);
  });

  it('delivers watch events asynchronously, never inside the call that caused them', async () => {
    const store = new InMemoryClusterStore();
    const s = store.session();
    await s.create('/n');
    let fired = false;
    await s.get('/n', () => (fired = true));
    const pending = s.set('/n', Buffer.from('x'));
    assert.equal(fired, false);
    await pending;
    await new Promise((r) => setImmediate(r));
    assert.equal(fired, true);
  });
});

describe('json nodes', () => {
  const Schema = z.object({ host: z.string(), port: z.number().int() });

  it('round-trips a value through createJson / writeJson / readJson', async () => {
    const s = new InMemoryClusterStore().session();
    await createJson(s, '/nimbus', { host: 'h', port: 1 });
    const stat = await writeJson(s, '/nimbus', { host: 'h', port: 2 }, 0);
    assert.equal(stat.version, 1);
    const { value } = await readJson(s, '/nimbus', Schema);
    assert.deepEqual(value, { host: 'h', port: 2 });
  });

  it('reports bytes that are not JSON, or JSON of the wrong shape, as CORRUPT', async () => {
    const s = new InMemoryClusterStore().session();
    await s.create('/garbage', Buffer.from([0xff, 0xfe, 0x00]));
    await s.create('/text', Buffer.from('{"host":'));
    await createJson(s, '/shape', { host: 'h', port: 'eighty' });
    for (const p of ['/garbage', '/text', '/shape']) {
      await assert.rejects(readJson(s, p, Schema), (err: unknown) => {
        assert.ok(isStateError(err, 'CORRUPT'), String(err));
        assert.equal(err.code, 'HSTORM_ERR_STATE_CORRUPT');
        assert.equal(err.path, p);
        return true;
      });
    }
  });

  it('passes NO_NODE through, and arms the watcher it is given', async () => {
    const s = new InMemoryClusterStore().session();
    await assert.rejects(readJson(s, '/missing', Schema), (err: unknown) => isStateError(err, 'NO_NODE'));
    await createJson(s, '/w', { host: 'a', port: 1 });
    let fire: (e: unknown) => void = () => undefined;
    const fired = new Promise((resolve) => (fire = resolve));
    await readJson(s, '/w', Schema, fire);
    await writeJson(s, '/w', { host: 'b', port: 2 });
    assert.deepEqual(await fired, { type: 'changed', path: '/w' });
  });
});
