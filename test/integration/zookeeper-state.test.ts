/**
 * The cluster-state contract against a real ZooKeeper server (one per file,
 * from test/helpers/zookeeper.ts), plus what only the ZooKeeper store does:
 * root isolation, surviving a forced session expiry, and deadlines when the
 * server is gone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { silentLogger } from '../../common/logger.js';
import { isStateError, type ClusterState, type SessionState } from '../../common/cluster-state.js';
import { ZooKeeperClusterState, connectZooKeeper, type ZooKeeperOptions } from '../../common/cluster-state/index.js';
import { clusterStateContract } from '../unit/common/cluster-state-contract.js';
import { expireSession, startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';
import { freePort } from '../helpers/ports.js';

const SESSION_MS = 4000;

function options(zk: TestZooKeeper, root: string, extra: Partial<ZooKeeperOptions> = {}): ZooKeeperOptions {
  return { servers: [zk.connectString], root, sessionTimeoutMs: SESSION_MS, connectTimeoutMs: 5000, operationTimeoutMs: 3000, ...extra };
}

describe('ZooKeeper cluster state', function () {
  this.timeout(60_000);
  let zk: TestZooKeeper;
  const log = silentLogger();

  before(async () => {
    zk = await startTestZooKeeper();
  });
  after(async () => {
    await zk?.stop();
  });

  clusterStateContract('ZooKeeper', async () => {
    // A root per test: tests see only their own nodes on the shared server.
    const root = `/contract-${randomUUID()}`;
    const clients: ClusterState[] = [];
    return {
      client: async () => {
        const c = await connectZooKeeper(options(zk, root), log);
        clients.push(c);
        return c;
      },
      expire: async (c) => {
        assert.ok(c instanceof ZooKeeperClusterState);
        await expireSession(zk, c);
      },
      cleanup: async () => {
        await Promise.all(clients.map((c) => c.close()));
        const admin = await connectZooKeeper(options(zk, '/'), log);
        await admin.delete(root, { recursive: true }).catch(() => undefined);
        await admin.close();
      },
    };
  });

  it('keeps clusters under different roots apart', async () => {
    const a = await connectZooKeeper(options(zk, '/iso/a'), log);
    const b = await connectZooKeeper(options(zk, '/iso/b'), log);
    const top = await connectZooKeeper(options(zk, '/'), log);
    try {
      await a.create('/nimbus', Buffer.from('a'));
      assert.equal(await b.exists('/nimbus'), null);
      await b.create('/nimbus', Buffer.from('b'));
      assert.equal((await a.get('/nimbus')).data.toString(), 'a');
      assert.deepEqual(await a.children('/'), ['nimbus']);
      assert.deepEqual(await top.children('/iso'), ['a', 'b']);
      assert.equal((await top.get('/iso/b/nimbus')).data.toString(), 'b');
      const seq = await a.create('/nimbus/s-', undefined, { mode: 'persistent_sequential' });
      assert.equal(seq, '/nimbus/s-0000000000');
      let fire: (e: unknown) => void = () => undefined;
      const event = new Promise((resolve) => (fire = resolve));
      await a.get('/nimbus', fire);
      await top.set('/iso/a/nimbus', Buffer.from('a2'));
      assert.deepEqual(await event, { type: 'changed', path: '/nimbus' });
    } finally {
      await top.delete('/iso', { recursive: true });
      await Promise.all([a.close(), b.close(), top.close()]);
    }
  });

  it('after a forced expiry, re-creates its ephemeral node and fires its watch', async function () {
    // expireSession retries for up to 60 s on its own; the test's deadline must leave it room to say why it failed.
    this.timeout(150_000);
    const root = `/expiry-${randomUUID()}`;
    const c = await connectZooKeeper(options(zk, root), log);
    const observer = await connectZooKeeper(options(zk, root), log);
    try {
      const states: SessionState[] = [];
      c.onSessionState((s) => states.push(s));
      await c.create('/supervisors/s1', Buffer.from('info'), { mode: 'ephemeral', parents: true });
      const before = c.sessionCredentials().id.toString('hex');
      let fire: (e: unknown) => void = () => undefined;
      const watchFired = new Promise((resolve) => (fire = resolve));
      await c.children('/supervisors', fire);
      await expireSession(zk, c);
      assert.deepEqual(await watchFired, { type: 'children', path: '/supervisors' });
      assert.notEqual(c.sessionCredentials().id.toString('hex'), before);
      const back = await observer.get('/supervisors/s1');
      assert.equal(back.data.toString(), 'info');
      assert.equal(back.stat.ephemeral, true);
      // The takeover first drops this client's connection (disconnected), its reconnect is told the session expired,
      // then a new session is up. A lost race in killSession adds a disconnected/connected pair before that.
      assert.equal(states[0], 'connected');
      assert.deepEqual(states.slice(-3), ['disconnected', 'expired', 'connected']);
    } finally {
      await Promise.all([c.close(), observer.close()]);
    }
  });

  it('rejects connecting to nothing with a typed error within connectTimeoutMs', async () => {
    const port = await freePort();
    const started = Date.now();
    await assert.rejects(
      connectZooKeeper({ servers: [`127.0.0.1:${port}`], root: '/x', sessionTimeoutMs: SESSION_MS, connectTimeoutMs: 700 }, log),
      (err: unknown) => isStateError(err, 'CONNECTION_LOSS'),
    );
    // Without the deadline the client would retry forever; 20 s is far above 700 ms so a loaded machine cannot fail it.
    assert.ok(Date.now() - started < 20_000, `connect gave up after ${Date.now() - started} ms`);
  });
});

describe('ZooKeeper cluster state when the server goes away', function () {
  this.timeout(60_000);

  it('rejects an operation with a typed error within its deadline, and reports disconnected', async () => {
    const zk = await startTestZooKeeper();
    let c: ZooKeeperClusterState | undefined;
    try {
      // A 60 s session (what the op deadline would default to) against a 1 s operation deadline, so the generous
      // 20 s bound below still tells "gave up at its own deadline" from "waited for the session".
      c = await connectZooKeeper(options(zk, '/gone', { sessionTimeoutMs: 60_000, operationTimeoutMs: 1000 }), silentLogger());
      await c.create('/n', Buffer.from('x'));
      const states: SessionState[] = [];
      c.onSessionState((s) => states.push(s));
      await zk.server.stop();
      const started = Date.now();
      await assert.rejects(c.get('/n'), (err: unknown) => isStateError(err, 'TIMEOUT') || isStateError(err, 'CONNECTION_LOSS'));
      assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
      await assert.rejects(c.set('/n', Buffer.from('y')), (err: unknown) => isStateError(err, 'TIMEOUT') || isStateError(err, 'CONNECTION_LOSS'));
      assert.ok(states.includes('disconnected'), `states: ${states.join(',')}`);
    } finally {
      const closing = c?.close();
      await closing;
      await zk.stop();
    }
  });
});
