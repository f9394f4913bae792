/**
 * The cluster-state contract: one suite, run against every ClusterState
 * implementation (in-memory, IPC proxy, real ZooKeeper). Each test gets a fresh
 * environment from the factory; clients it hands out are closed by `cleanup`.
 * Watch tests never sleep: to show a watcher did NOT fire again, they arm a
 * second watch after it and wait for that one, relying on ZooKeeper's ordering
 * of events to one client.
 */
import assert from 'node:assert/strict';
import { waitFor } from '../../helpers/wait-for.js';
import { isStateError, type ClusterState, type ClusterStateErrorKind, type SessionState, type WatchEvent, type Watcher } from '../../../common/cluster-state.js';

export interface ContractEnv {
  client(): Promise<ClusterState>;
  /** Forces the client's session to expire (implementations that recover from expiry). */
  expire?(c: ClusterState): Promise<void>;
  cleanup(): Promise<void>;
}

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

async function rejectsWith(p: Promise<unknown>, kind: ClusterStateErrorKind): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isStateError(err, kind), `expected ClusterStateError ${kind}, got ${String((err as Error)?.stack ?? err)}`);
    assert.equal((err as { code: string }).code, `HSTORM_ERR_STATE_${kind}`);
    return true;
  });
}

/** A watcher that records every call; `next()` resolves with the next event (or fails after `ms`). */
function recorder(ms = 15_000): { watcher: Watcher; events: WatchEvent[]; next(): Promise<WatchEvent> } {
  const events: WatchEvent[] = [];
  const waiting: ((e: WatchEvent) => void)[] = [];
  let read = 0;
  return {
    events,
    watcher: (e) => {
      events.push(e);
      waiting.shift()?.(e);
    },
    next: () => {
      const i = read++;
      const have = events[i];
      if (have) return Promise.resolve(have);
      return new Promise<WatchEvent>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`watcher did not fire within ${ms} ms (events so far: ${JSON.stringify(events)})`)), ms);
        waiting.push((e) => {
          clearTimeout(t);
          resolve(e);
        });
      });
    },
  };
}

/** The shared poll (test/helpers/wait-for.ts) with this file's default deadline and a short interval. */
async function waitUntil(what: string, check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  await waitFor(what, check, ms, 20);
}

export function clusterStateContract(name: string, factory: () => Promise<ContractEnv>): void {
  describe(`ClusterState contract: ${name}`, function () {
    this.timeout(40_000);
    let env: ContractEnv;
    let c: ClusterState;

    beforeEach(async () => {
      env = await factory();
      c = await env.client();
    });
    afterEach(async () => {
      await env.cleanup();
    });

    describe('create / get / set / delete', () => {
      it('creates a node and reads back its data and a fresh stat', async () => {
        assert.equal(await c.create('/a', b('hello')), '/a');
        const { data, stat } = await c.get('/a');
        assert.ok(Buffer.isBuffer(data));
        assert.equal(data.toString(), 'hello');
        assert.equal(stat.version, 0);
        assert.equal(stat.cversion, 0);
        assert.equal(stat.numChildren, 0);
        assert.equal(stat.ephemeral, false);
        assert.ok(stat.ctime > 0 && stat.mtime >= stat.ctime);
      });

      it('creates a node without data as empty', async () => {
        await c.create('/empty');
        assert.equal((await c.get('/empty')).data.length, 0);
      });

      it('keeps binary data intact', async () => {
        const bytes = Buffer.from([0, 255, 1, 128, 10, 13, 0]);
        await c.create('/bin', bytes);
        assert.deepEqual((await c.get('/bin')).data, bytes);
      });

      it('copies data on the way in and on the way out', async () => {
        const input = b('abc');
        await c.create('/copy', input);
        input[0] = 0x7a;
        const first = await c.get('/copy');
        first.data[1] = 0x7a;
        assert.equal((await c.get('/copy')).data.toString(), 'abc');
      });

      it('rejects creating an existing node with NODE_EXISTS', async () => {
        await c.create('/dup');
        await rejectsWith(c.create('/dup'), 'NODE_EXISTS');
      });

      it('rejects a missing parent with NO_PARENT, and creates parents when asked', async () => {
        await rejectsWith(c.create('/x/y/z', b('leaf')), 'NO_PARENT');
        assert.equal(await c.create('/x/y/z', b('leaf'), { parents: true }), '/x/y/z');
        assert.equal((await c.get('/x/y/z')).data.toString(), 'leaf');
        const mid = await c.get('/x/y');
        assert.equal(mid.data.length, 0);
        assert.equal(mid.stat.ephemeral, false);
        // Existing parents are fine too.
        await c.create('/x/y/w', undefined, { parents: true });
        assert.deepEqual(await c.children('/x/y'), ['w', 'z']);
      });

      it('reports a missing node: get NO_NODE, exists null', async () => {
        await rejectsWith(c.get('/nope'), 'NO_NODE');
        assert.equal(await c.exists('/nope'), null);
        const stat = await c.exists('/');
        assert.ok(stat);
      });

      it('counts versions: +1 per set', async () => {
        await c.create('/v', b('0'));
        assert.equal((await c.set('/v', b('1'))).version, 1);
        assert.equal((await c.set('/v', b('2'))).version, 2);
        const { data, stat } = await c.get('/v');
        assert.equal(data.toString(), '2');
        assert.equal(stat.version, 2);
        assert.equal((await c.exists('/v'))?.version, 2);
      });

      it('compares and sets with a version: BAD_VERSION on mismatch, nothing written', async () => {
        await c.create('/cas', b('a'));
        assert.equal((await c.set('/cas', b('b'), 0)).version, 1);
        await rejectsWith(c.set('/cas', b('c'), 0), 'BAD_VERSION');
        assert.equal((await c.get('/cas')).data.toString(), 'b');
        assert.equal((await c.set('/cas', b('c'), 1)).version, 2);
      });

      it('lets two clients race on a compare-and-set: exactly one wins', async () => {
        const other = await env.client();
        await c.create('/race', b('0'));
        const results = await Promise.allSettled([c.set('/race', b('c'), 0), other.set('/race', b('o'), 0)]);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        const lost = results.find((r) => r.status === 'rejected');
        assert.ok(lost && isStateError(lost.reason, 'BAD_VERSION'));
      });

      it('rejects set on a missing node with NO_NODE', async () => {
        await rejectsWith(c.set('/missing', b('x')), 'NO_NODE');
      });

      it('deletes a node; NO_NODE when missing; BAD_VERSION on a wrong version', async () => {
        await c.create('/d', b('x'));
        await c.set('/d', b('y'));
        await rejectsWith(c.delete('/d', { version: 0 }), 'BAD_VERSION');
        await c.delete('/d', { version: 1 });
        assert.equal(await c.exists('/d'), null);
        await rejectsWith(c.delete('/d'), 'NO_NODE');
      });

      it('refuses to delete a node with children (NOT_EMPTY) unless recursive', async () => {
        await c.create('/t/a/b', b('1'), { parents: true });
        await c.create('/t/c', b('2'));
        await rejectsWith(c.delete('/t'), 'NOT_EMPTY');
        await c.delete('/t', { recursive: true });
        assert.equal(await c.exists('/t'), null);
        assert.equal(await c.exists('/t/a/b'), null);
        await rejectsWith(c.delete('/t', { recursive: true }), 'NO_NODE');
      });

      it('checks the version of the top node before a recursive delete removes anything', async () => {
        await c.create('/rv/child', undefined, { parents: true });
        await rejectsWith(c.delete('/rv', { recursive: true, version: 3 }), 'BAD_VERSION');
        assert.deepEqual(await c.children('/rv'), ['child']);
      });

      it('rejects malformed paths with BAD_ARGUMENT', async () => {
        for (const p of ['', 'rel', '/trailing/', '/a//b', '/a/./b', '/a/../b']) await rejectsWith(c.create(p), 'BAD_ARGUMENT');
        await rejectsWith(c.get('no-slash'), 'BAD_ARGUMENT');
        await rejectsWith(c.delete('/'), 'BAD_ARGUMENT');
      });

      it('rejects data over the size limit with BAD_ARGUMENT', async () => {
        await rejectsWith(c.create('/big', Buffer.alloc(1_100_000)), 'BAD_ARGUMENT');
        await c.create('/big');
        await rejectsWith(c.set('/big', Buffer.alloc(1_100_000)), 'BAD_ARGUMENT');
      });
    });

    describe('children', () => {
      it('lists child names sorted, and counts cversion and numChildren', async () => {
        await c.create('/p');
        for (const n of ['m', 'b', 'z', 'a']) await c.create(`/p/${n}`);
        assert.deepEqual(await c.children('/p'), ['a', 'b', 'm', 'z']);
        await c.delete('/p/m');
        const stat = await c.exists('/p');
        assert.equal(stat?.cversion, 5);
        assert.equal(stat?.numChildren, 3);
        assert.equal(stat?.version, 0);
        await rejectsWith(c.children('/none'), 'NO_NODE');
      });

      it('lists the top-level nodes under /', async () => {
        await c.create('/top1');
        await c.create('/top2');
        const names = await c.children('/');
        assert.ok(names.includes('top1') && names.includes('top2'));
      });
    });

    describe('ephemeral nodes', () => {
      it('are visible to other clients and vanish when their client closes', async () => {
        const other = await env.client();
        await c.create('/eph', b('me'), { mode: 'ephemeral' });
        const stat = await other.exists('/eph');
        assert.equal(stat?.ephemeral, true);
        const w = recorder();
        await other.exists('/eph', w.watcher);
        await c.close();
        assert.deepEqual(await w.next(), { type: 'deleted', path: '/eph' });
        assert.equal(await other.exists('/eph'), null);
      });

      it('cannot have children', async () => {
        await c.create('/eph2', undefined, { mode: 'ephemeral' });
        await rejectsWith(c.create('/eph2/kid'), 'BAD_ARGUMENT');
        await rejectsWith(c.create('/eph2/kid/deeper', undefined, { parents: true }), 'BAD_ARGUMENT');
      });

      it('can be deleted by their owner like any node', async () => {
        const other = await env.client();
        await c.create('/eph3', undefined, { mode: 'ephemeral' });
        await c.delete('/eph3');
        await c.create('/eph3', undefined, { mode: 'persistent' });
        await c.close();
        assert.ok(await other.exists('/eph3'));
      });
    });

    describe('sequential nodes', () => {
      it('get a 10-digit zero-padded suffix counted per parent', async () => {
        await c.create('/q');
        await c.create('/r');
        const a = await c.create('/q/item-', b('1'), { mode: 'persistent_sequential' });
        const b2 = await c.create('/q/item-', b('2'), { mode: 'persistent_sequential' });
        const other = await c.create('/r/x', undefined, { mode: 'persistent_sequential' });
        assert.equal(a, '/q/item-0000000000');
        assert.equal(b2, '/q/item-0000000001');
        assert.equal(other, '/r/x0000000000');
        assert.equal((await c.get(b2)).data.toString(), '2');
        assert.deepEqual(await c.children('/q'), ['item-0000000000', 'item-0000000001']);
      });

      it('keep counting after deletes (the counter is the parent cversion)', async () => {
        await c.create('/s');
        const first = await c.create('/s/n', undefined, { mode: 'persistent_sequential' });
        await c.delete(first);
        const second = await c.create('/s/n', undefined, { mode: 'persistent_sequential' });
        assert.match(second, /^\/s\/n\d{10}$/);
        assert.ok(second > first);
      });

      it('can be ephemeral', async () => {
        const other = await env.client();
        await c.create('/es');
        const p = await c.create('/es/lock-', undefined, { mode: 'ephemeral_sequential' });
        assert.match(p, /^\/es\/lock-\d{10}$/);
        assert.equal((await other.exists(p))?.ephemeral, true);
        await c.close();
        assert.deepEqual(await other.children('/es'), []);
      });
    });

    describe('watches', () => {
      it('a data watch from get fires once, on the first change, seen by another client', async () => {
        const writer = await env.client();
        await writer.create('/w', b('0'));
        const w = recorder();
        await c.get('/w', w.watcher);
        await writer.set('/w', b('1'));
        assert.deepEqual(await w.next(), { type: 'changed', path: '/w' });
        await writer.set('/w', b('2'));
        // Barrier: a second watch armed after the second set fires on a third; the first must not have fired again.
        const barrier = recorder();
        await c.get('/w', barrier.watcher);
        await writer.set('/w', b('3'));
        await barrier.next();
        assert.equal(w.events.length, 1);
      });

      it('a data watch fires `deleted` when the node is deleted', async () => {
        await c.create('/wd');
        const w = recorder();
        await c.get('/wd', w.watcher);
        await c.delete('/wd');
        assert.deepEqual(await w.next(), { type: 'deleted', path: '/wd' });
      });

      it('an exists watch on a missing node fires `created`', async () => {
        const other = await env.client();
        const w = recorder();
        assert.equal(await c.exists('/later', w.watcher), null);
        await other.create('/later');
        assert.deepEqual(await w.next(), { type: 'created', path: '/later' });
      });

      it('an exists watch on an existing node fires `changed`', async () => {
        await c.create('/ex');
        const w = recorder();
        await c.exists('/ex', w.watcher);
        await c.set('/ex', b('x'));
        assert.deepEqual(await w.next(), { type: 'changed', path: '/ex' });
      });

      it('a children watch fires `children` on a child created, once', async () => {
        const other = await env.client();
        await c.create('/cw');
        const w = recorder();
        assert.deepEqual(await c.children('/cw', w.watcher), []);
        await other.create('/cw/a');
        assert.deepEqual(await w.next(), { type: 'children', path: '/cw' });
        await other.create('/cw/b');
        const barrier = recorder();
        await c.children('/cw', barrier.watcher);
        await other.create('/cw/c');
        await barrier.next();
        assert.equal(w.events.length, 1);
      });

      it('a children watch fires on a child deleted, not on a child changed', async () => {
        await c.create('/cd/kid', undefined, { parents: true });
        const w = recorder();
        await c.children('/cd', w.watcher);
        await c.set('/cd/kid', b('changed'));
        await c.delete('/cd/kid');
        assert.deepEqual(await w.next(), { type: 'children', path: '/cd' });
        assert.equal(w.events.length, 1);
      });

      it('a children watch fires `deleted` when the node itself is deleted', async () => {
        await c.create('/cx');
        const w = recorder();
        await c.children('/cx', w.watcher);
        await c.delete('/cx');
        assert.deepEqual(await w.next(), { type: 'deleted', path: '/cx' });
      });

      it('a recursive delete fires watches on every removed node', async () => {
        await c.create('/rt/a', undefined, { parents: true });
        const onLeaf = recorder();
        const onTop = recorder();
        await c.get('/rt/a', onLeaf.watcher);
        await c.exists('/rt', onTop.watcher);
        await c.delete('/rt', { recursive: true });
        assert.deepEqual(await onLeaf.next(), { type: 'deleted', path: '/rt/a' });
        assert.deepEqual(await onTop.next(), { type: 'deleted', path: '/rt' });
      });

      it('no watch is set when get or children fails with NO_NODE', async () => {
        const w = recorder();
        await rejectsWith(c.get('/ghost', w.watcher), 'NO_NODE');
        await rejectsWith(c.children('/ghost', w.watcher), 'NO_NODE');
        await c.create('/ghost');
        const barrier = recorder();
        await c.get('/ghost', barrier.watcher);
        await c.set('/ghost', b('x'));
        await barrier.next();
        assert.equal(w.events.length, 0);
      });

      it('the same watcher set twice on one node fires once', async () => {
        await c.create('/twice');
        const w = recorder();
        await c.get('/twice', w.watcher);
        await c.get('/twice', w.watcher);
        await c.set('/twice', b('x'));
        await w.next();
        const barrier = recorder();
        await c.get('/twice', barrier.watcher);
        await c.set('/twice', b('y'));
        await barrier.next();
        assert.equal(w.events.length, 1);
      });

      it('a watcher that throws does not break the client', async () => {
        await c.create('/boom');
        await c.get('/boom', () => {
          throw new Error('watcher failure on purpose');
        });
        const w = recorder();
        await c.get('/boom', w.watcher);
        await c.set('/boom', b('1'));
        await w.next();
        assert.equal((await c.set('/boom', b('2'))).version, 2);
      });

      it('watches of a closed client never fire', async () => {
        const other = await env.client();
        await other.create('/closed-w');
        let fired = 0;
        await c.get('/closed-w', () => fired++);
        await c.close();
        const barrier = recorder();
        await other.get('/closed-w', barrier.watcher);
        await other.set('/closed-w', b('x'));
        await barrier.next();
        assert.equal(fired, 0);
      });
    });

    describe('session', () => {
      it('reports `connected` to a new listener, and stops after unsubscribe', async () => {
        const seen: SessionState[] = [];
        const off = c.onSessionState((s) => seen.push(s));
        await waitUntil('the listener heard the current state', () => seen.length > 0);
        assert.deepEqual(seen, ['connected']);
        off();
      });

      it('rejects every operation after close with CLOSED; close twice is fine', async () => {
        await c.create('/after');
        await c.close();
        await c.close();
        await rejectsWith(c.get('/after'), 'CLOSED');
        await rejectsWith(c.create('/after2'), 'CLOSED');
        await rejectsWith(c.set('/after', b('x')), 'CLOSED');
        await rejectsWith(c.children('/'), 'CLOSED');
        await rejectsWith(c.exists('/after'), 'CLOSED');
        await rejectsWith(c.delete('/after'), 'CLOSED');
      });

      it('survives expiry: re-creates its ephemeral nodes, re-fires outstanding watches, reports expired then connected', async function () {
        // Longer than the sum of the deadlines below, so that a slow step fails with its own message: the expire
        // hook gives up after 60 s, and five waits of up to 15 s follow. Under the suite's 40 s, a soak run's slow
        // expiry surfaced only as mocha's timeout, naming no step. It passes in well under a second.
        this.timeout(60_000 + 5 * 15_000 + 20_000);
        if (!env.expire) {
          // Only stores that recover from expiry provide `expire`; say so rather than pass silently.
          assert.fail(`${name} has no expire hook: every implementation under this contract recovers from expiry`);
        }
        const observer = await env.client();
        const states: SessionState[] = [];
        c.onSessionState((s) => states.push(s));
        await waitUntil('initial state heard', () => states.length > 0);
        await c.create('/live', b('v1'), { mode: 'ephemeral' });
        await c.set('/live', b('v2'));
        await c.create('/plain', b('p'));
        const dataWatch = recorder(15_000);
        const childWatch = recorder(15_000);
        await c.get('/plain', dataWatch.watcher);
        await c.children('/', childWatch.watcher);
        const seenGone = recorder(15_000);
        await observer.exists('/live', seenGone.watcher);

        await env.expire(c);

        assert.deepEqual(await seenGone.next(), { type: 'deleted', path: '/live' });
        assert.deepEqual(await dataWatch.next(), { type: 'changed', path: '/plain' });
        assert.deepEqual(await childWatch.next(), { type: 'children', path: '/' });
        await waitUntil('the ephemeral node is back', async () => (await observer.exists('/live')) !== null, 15_000);
        const back = await observer.get('/live');
        assert.equal(back.data.toString(), 'v2');
        assert.equal(back.stat.ephemeral, true);
        assert.deepEqual(states.slice(-2), ['expired', 'connected']);
        // The client keeps working, and still owns the node: it goes when the client closes.
        await c.set('/live', b('v3'));
        await c.close();
        await waitUntil('the re-created node went with its client', async () => (await observer.exists('/live')) === null);
      });
    });
  });
}
