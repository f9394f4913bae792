/**
 * The state-store contract: one suite, run against every StateStore (the
 * memory provider here in the unit tests, Redis against a real redis-server
 * in test/integration/redis-state-store.test.ts). Each test gets a fresh
 * environment: a store and a namespace no other test uses.
 *
 * What it pins down is what the checkpoint protocol relies on: prepared
 * changes are invisible until committed; a commit applies all of them or
 * none, and a reader never sees half of one; a retried commit is a no-op; a
 * rollback forgets the prepare; a second store (another worker process, after
 * a crash) reads what the first committed; binary keys and values round-trip.
 */
import assert from 'node:assert/strict';
import type { StateEntry, StateStore } from '../../../common/state-store/index.js';
import { TOMBSTONE } from '../../../common/state-store/index.js';

export interface StateStoreEnv {
  store: StateStore;
  /** Another store on the same data, as a restarted worker opens one (memory: a handle on the same process's data). */
  second: () => Promise<StateStore>;
  ns: string;
  cleanup(): Promise<void>;
}

const b = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (u: Uint8Array | null): string | null => (u === null ? null : Buffer.from(u).toString('utf8'));

async function entries(store: StateStore, ns: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await store.scan(ns, (chunk) => {
    for (const [k, v] of chunk) out.set(Buffer.from(k).toString('latin1'), Buffer.from(v).toString('latin1'));
  });
  return out;
}

export function stateStoreContract(name: string, makeEnv: () => Promise<StateStoreEnv>): void {
  describe(`StateStore contract: ${name}`, function () {
    this.timeout(60_000);
    let env: StateStoreEnv;

    beforeEach(async () => {
      env = await makeEnv();
    });
    afterEach(async () => {
      await env.cleanup();
    });

    it('an unknown namespace is empty, with no transaction', async () => {
      const { store, ns } = env;
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: null });
      assert.equal(await store.size(ns), 0);
      assert.deepEqual(await store.get(ns, [b('a')]), [null]);
      assert.equal((await entries(store, ns)).size, 0);
    });

    it('prepared changes are invisible until committed, then all visible', async () => {
      const { store, ns } = env;
      await store.prepare(ns, 1, [
        [b('a'), b('1')],
        [b('b'), b('2')],
      ]);
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: 1 });
      assert.deepEqual(await store.get(ns, [b('a'), b('b')]), [null, null]);
      await store.commit(ns, 1);
      assert.deepEqual(await store.txids(ns), { committed: 1, prepared: null });
      assert.deepEqual((await store.get(ns, [b('a'), b('b'), b('c')])).map(text), ['1', '2', null]);
      assert.equal(await store.size(ns), 2);
    });

    it('a tombstone deletes its key at the commit', async () => {
      const { store, ns } = env;
      await store.prepare(ns, 1, [
        [b('a'), b('1')],
        [b('b'), b('2')],
      ]);
      await store.commit(ns, 1);
      await store.prepare(ns, 2, [
        [b('a'), TOMBSTONE],
        [b('c'), b('3')],
      ]);
      assert.deepEqual((await store.get(ns, [b('a')])).map(text), ['1'], 'still there before the commit');
      await store.commit(ns, 2);
      assert.deepEqual((await store.get(ns, [b('a'), b('b'), b('c')])).map(text), [null, '2', '3']);
      assert.deepEqual([...(await entries(store, ns)).keys()].sort(), ['b', 'c']);
    });

    it('a prepare replaces an earlier prepare; a rollback forgets it', async () => {
      const { store, ns } = env;
      await store.prepare(ns, 1, [[b('a'), b('old')]]);
      await store.prepare(ns, 2, [[b('b'), b('new')]]);
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: 2 });
      await store.rollback(ns);
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: null });
      await store.commit(ns, 2); // nothing prepared: a no-op
      assert.equal(await store.size(ns), 0);
      await store.prepare(ns, 3, [[b('b'), b('new')]]);
      await store.commit(ns, 3);
      assert.deepEqual((await store.get(ns, [b('a'), b('b')])).map(text), [null, 'new']);
    });

    it('a retried commit is a no-op; a commit of another txid than the prepared one fails and changes nothing', async () => {
      const { store, ns } = env;
      await store.prepare(ns, 5, [[b('a'), b('1')]]);
      await store.commit(ns, 5);
      await store.commit(ns, 5);
      assert.deepEqual(await store.txids(ns), { committed: 5, prepared: null });
      await store.prepare(ns, 6, [[b('a'), b('2')]]);
      await assert.rejects(store.commit(ns, 7), (err: unknown) => {
        assert.equal((err as { code: string }).code, 'HSTORM_ERR_STATESTORE_TXID');
        assert.match((err as Error).message, /commit of transaction 7, but transaction 6 is the one prepared/);
        return true;
      });
      assert.deepEqual(await store.txids(ns), { committed: 5, prepared: 6 });
      assert.deepEqual((await store.get(ns, [b('a')])).map(text), ['1']);
    });

    it('an empty prepare still records its txid, and commits', async () => {
      const { store, ns } = env;
      await store.prepare(ns, 1, []);
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: 1 });
      await store.commit(ns, 1);
      assert.deepEqual(await store.txids(ns), { committed: 1, prepared: null });
    });

    it('binary keys and values round-trip byte for byte, the empty key included', async () => {
      const { store, ns } = env;
      const all = new Uint8Array(256).map((_, i) => i);
      const changes: StateEntry[] = [
        [all, all.slice().reverse()],
        [new Uint8Array([0]), new Uint8Array([0, 0, 0])],
        [new Uint8Array(0), new Uint8Array([0xc1])],
      ];
      await store.prepare(ns, 1, changes);
      await store.commit(ns, 1);
      const got = await store.get(ns, changes.map(([k]) => k));
      got.forEach((v, i) => assert.deepEqual(v === null ? null : [...v], [...changes[i]![1]]));
      const scanned = await entries(store, ns);
      assert.equal(scanned.size, 3);
    });

    it('write puts entries committed at once, outside any transaction', async () => {
      const { store, ns } = env;
      await store.write(ns, [
        [b('s'), b('x')],
        [b('t'), b('y')],
      ]);
      await store.write(ns, [[b('t'), TOMBSTONE]]);
      assert.deepEqual((await store.get(ns, [b('s'), b('t')])).map(text), ['x', null]);
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: null });
    });

    it('scan hands out a large namespace in chunks, every entry once', async () => {
      const { store, ns } = env;
      const n = 5000;
      const changes: StateEntry[] = Array.from({ length: n }, (_, i) => [b(`k${i}`), b(`v${i}`)]);
      await store.prepare(ns, 1, changes);
      await store.commit(ns, 1);
      let chunks = 0;
      const seen = new Map<string, string>();
      await store.scan(ns, (chunk) => {
        chunks++;
        for (const [k, v] of chunk) seen.set(text(k)!, text(v)!);
      });
      assert.ok(chunks > 1, `${chunks} chunk(s) for ${n} entries`);
      assert.equal(seen.size, n);
      for (let i = 0; i < n; i += 997) assert.equal(seen.get(`k${i}`), `v${i}`);
      assert.equal(await store.size(ns), n);
    });

    it('a reader never sees half a commit', async () => {
      const { store, ns } = env;
      // Two generations of 20 000 entries; a reader polling while the second commits must find one generation whole.
      const n = 20_000;
      const keys = Array.from({ length: n }, (_, i) => b(`key-${i}`));
      const gen = (g: string): StateEntry[] => keys.map((k) => [k, b(g)]);
      await store.prepare(ns, 1, gen('one'));
      await store.commit(ns, 1);
      await store.prepare(ns, 2, gen('two'));
      const reader = await env.second();
      const probe = [keys[0]!, keys[n >> 1]!, keys[n - 1]!];
      let reads = 0;
      let done = false;
      const seen = new Set<string>();
      const polling = (async () => {
        while (!done) {
          const got = (await reader.get(ns, probe)).map(text);
          seen.add(got.join(','));
          assert.ok(got.every((g) => g === got[0]), `one read saw ${got.join(', ')}: half a commit`);
          reads++;
        }
      })();
      await store.commit(ns, 2);
      done = true;
      await polling;
      const after = (await reader.get(ns, probe)).map(text);
      assert.deepEqual(after, ['two', 'two', 'two']);
      assert.ok(reads > 0);
      for (const s of seen) assert.ok(s === 'one,one,one' || s === 'two,two,two', s);
      await reader.close();
    });

    it('a second store reads what the first committed and sees its prepared transaction (recovery after a crash)', async () => {
      const { store, ns } = env;
      await store.prepare(ns, 1, [[b('a'), b('1')]]);
      await store.commit(ns, 1);
      await store.prepare(ns, 2, [[b('a'), b('2')]]);
      const other = await env.second();
      try {
        assert.deepEqual(await other.txids(ns), { committed: 1, prepared: 2 });
        assert.deepEqual((await other.get(ns, [b('a')])).map(text), ['1']);
        // Roll forward from the other store, as a restarted worker does on the recovery's COMMIT.
        await other.commit(ns, 2);
        assert.deepEqual((await store.get(ns, [b('a')])).map(text), ['2']);
      } finally {
        await other.close();
      }
    });

    it('drop removes the namespace and only it', async () => {
      const { store, ns } = env;
      await store.write(ns, [[b('a'), b('1')]]);
      await store.write(`${ns}-other`, [[b('a'), b('1')]]);
      await store.prepare(ns, 3, [[b('b'), b('2')]]);
      await store.drop(ns);
      assert.deepEqual(await store.txids(ns), { committed: null, prepared: null });
      assert.equal(await store.size(ns), 0);
      assert.equal(await store.size(`${ns}-other`), 1);
      await store.drop(`${ns}-other`);
    });

    it('locate names the namespace and the key', () => {
      const where = env.store.locate(env.ns, new Uint8Array([0xa3, 0x66, 0x6f, 0x6f]));
      assert.ok(where.includes(env.ns), where);
      assert.ok(where.includes('"\\xa3foo"'), where);
    });
  });
}
