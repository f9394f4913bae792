/**
 * The state-store contract against a real Redis (Debian's redis-server, one per
 * file, test/helpers/servers/redis.ts), plus what only the Redis provider has:
 * fast failure while Redis is down and recovery once it is back, a key that is
 * not hstorm's, and where its keys are; two topologies whose key prefixes
 * differ by what one's name adds do not share keys.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { ConfigError } from '../../common/errors.js';
import { openStateStore, RedisStateStore, type StateStoreSettings } from '../../common/state-store/index.js';
import { stateNamespace } from '../../topology-sdk/internal/state-namespace.js';
import { StoreKeyValueState } from '../../topology-sdk/internal/store-key-value-state.js';
import { stateStoreContract } from '../unit/common/state-store-contract.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';
import { waitFor } from '../helpers/wait-for.js';

let redis: TestRedis;

before(async function () {
  this.timeout(60_000);
  redis = await startTestRedis({ persistent: true });
});

after(async () => {
  await redis?.stop();
});

function settings(overrides: Partial<StateStoreSettings> = {}): StateStoreSettings {
  return { provider: 'redis', url: redis.url, keyPrefix: `test:${randomUUID()}:`, connectTimeoutMs: 5000, commandTimeoutMs: 5000, urlEnv: null, ...overrides };
}

async function connected(s: StateStoreSettings): Promise<RedisStateStore> {
  const store = new RedisStateStore(s);
  await store.ready(30_000);
  return store;
}

stateStoreContract('redis', async () => {
  const s = settings();
  const store = await connected(s);
  const others: RedisStateStore[] = [];
  return {
    store,
    second: async () => {
      const o = await connected(s);
      others.push(o);
      return o;
    },
    ns: 'topo:bolt:0',
    cleanup: async () => {
      await store.close();
      await Promise.all(others.map((o) => o.close()));
    },
  };
});

describe('RedisStateStore', function () {
  this.timeout(60_000);

  it('keeps a namespace in three keys under its prefix: entries, prepare and txids', async () => {
    const s = settings();
    const store = await connected(s);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      await store.prepare('t:c:0', 1, [[Buffer.from('k'), Buffer.from('v')]]);
      assert.deepEqual((await raw.keys(`${s.keyPrefix}*`)).sort(), [`${s.keyPrefix}t:c:0$prepare`, `${s.keyPrefix}t:c:0$txid`]);
      await store.commit('t:c:0', 1);
      assert.deepEqual((await raw.keys(`${s.keyPrefix}*`)).sort(), [`${s.keyPrefix}t:c:0`, `${s.keyPrefix}t:c:0$txid`]);
      assert.deepEqual(await raw.hGetAll(`${s.keyPrefix}t:c:0$txid`), { commit: '1' });
      assert.equal(await raw.hGet(`${s.keyPrefix}t:c:0`, 'k'), 'v');
    } finally {
      await raw.close();
      await store.close();
    }
  });

  it("keeps topology t1 under prefix hstorm:state:s apart from topology st1 under hstorm:state: (the namespaces once collided)", async () => {
    const ns = (topologyName: string) => stateNamespace({ topologyName, componentId: 'count', taskIndex: 0 });
    const state = (store: RedisStateStore, topology: string) => new StoreKeyValueState<string, number>(store, ns(topology), { component: 'count', task: 0, onCorrupt: () => undefined });
    const entries = (s: StoreKeyValueState<string, number>) => [...s].sort(([a], [b]) => a.localeCompare(b));
    const st1Store = await connected(settings({ keyPrefix: 'hstorm:state:' }));
    const t1Store = await connected(settings({ keyPrefix: 'hstorm:state:s' }));
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const st1 = state(st1Store, 'st1');
      await st1.load();
      st1.put('a', 1);
      st1.put('b', 2);
      await st1.prepare(1);
      await st1.commit(1);
      const t1 = state(t1Store, 't1');
      await t1.load();
      assert.deepEqual(entries(t1), [], "t1 loaded st1's state");
      t1.put('a', 100);
      await t1.prepare(1);
      await t1.commit(1);
      const st1Again = state(st1Store, 'st1');
      await st1Again.load();
      assert.deepEqual(entries(st1Again), [['a', 1], ['b', 2]], "t1's commit overwrote st1's state");
      const t1Again = state(t1Store, 't1');
      await t1Again.load();
      assert.deepEqual(entries(t1Again), [['a', 100]]);
      assert.deepEqual((await raw.keys('hstorm:state:*')).sort(), ['hstorm:state:s{t1:count:0}', 'hstorm:state:s{t1:count:0}$txid', 'hstorm:state:{st1:count:0}', 'hstorm:state:{st1:count:0}$txid']);
    } finally {
      await raw.close();
      await st1Store.close();
      await t1Store.close();
    }
  });

  it('a key holding something else, or a garbage txid, is an error naming the key — not a crash', async () => {
    const s = settings();
    const store = await connected(s);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      await raw.set(`${s.keyPrefix}t:c:1`, 'a string, not a hash');
      await assert.rejects(store.size('t:c:1'), (err: unknown) => {
        assert.equal((err as { code: string }).code, 'HSTORM_ERR_STATESTORE_UNAVAILABLE');
        assert.match((err as Error).message, new RegExp(`${s.keyPrefix}t:c:1.*WRONGTYPE`));
        return true;
      });
      await raw.hSet(`${s.keyPrefix}t:c:2$txid`, 'commit', 'seven');
      await assert.rejects(store.txids('t:c:2'), /t:c:2\$txid" field "commit" .* holds "seven", not a transaction id/);
    } finally {
      await raw.close();
      await store.close();
    }
  });

  it('fails fast while Redis is down, and works again once it is back (data kept)', async () => {
    const s = settings({ commandTimeoutMs: 2000 });
    const store = await connected(s);
    try {
      await store.prepare('t:c:3', 1, [[Buffer.from('a'), Buffer.from('1')]]);
      await store.commit('t:c:3', 1);
      await redis.takeDown();
      const started = Date.now();
      await assert.rejects(store.prepare('t:c:3', 2, [[Buffer.from('a'), Buffer.from('2')]]), (err: unknown) => {
        assert.equal((err as { code: string }).code, 'HSTORM_ERR_STATESTORE_UNAVAILABLE');
        assert.match((err as Error).message, /t:c:3/);
        return true;
      });
      // Fast: the command timeout at most (plus the machine's load), not a hang.
      assert.ok(Date.now() - started < 30_000);
      await redis.bringUp();
      const [v] = await waitFor('the store answering again', async () => {
        try {
          return await store.get('t:c:3', [Buffer.from('a')]);
        } catch {
          return null;
        }
      }, 30_000, 100);
      assert.equal(Buffer.from(v!).toString(), '1');
      assert.deepEqual(await store.txids('t:c:3'), { committed: 1, prepared: null });
    } finally {
      await store.close();
    }
  });

  it('redacts the password from where it says it is, the part after an "@" in it too', async () => {
    for (const password of ['s3cret', 's3cret@TAILSECRET', 'a@b@TAILSECRET']) {
      const store = new RedisStateStore(settings({ url: `redis://user:${password}@127.0.0.1:${redis.port}` }));
      try {
        assert.ok(!store.where.includes('s3cret') && !store.where.includes('TAILSECRET'), store.where);
        assert.match(store.where, new RegExp(`^redis://user:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port} `));
      } finally {
        await store.close();
      }
    }
  });

  it('reads the URL from the variable urlEnv names when the store opens, and names the variable, never its value, when it is unset', async () => {
    const base = { ...settings(), url: 'redis://127.0.0.1:1', urlEnv: 'HSTORM_TEST_STATE_URL' };
    const store = openStateStore(base, {}, { HSTORM_TEST_STATE_URL: redis.url });
    assert.ok(store instanceof RedisStateStore);
    try {
      await store.ready(30_000);
      assert.match(store.where, new RegExp(`:${redis.port} `), 'the variable wins over url');
    } finally {
      await store.close();
    }
    assert.throws(
      () => openStateStore(base, {}, {}),
      (err: unknown) => err instanceof ConfigError && err.key === 'topology.state.provider.config' && /urlEnv names the environment variable HSTORM_TEST_STATE_URL, which is not set/.test(err.message),
    );
    assert.throws(
      () => openStateStore(base, {}, { HSTORM_TEST_STATE_URL: 'http://user:hunter2@x' }),
      (err: unknown) => err instanceof ConfigError && /HSTORM_TEST_STATE_URL \(urlEnv\) does not hold a redis/.test(err.message) && !err.message.includes('hunter2'),
    );
  });
});
