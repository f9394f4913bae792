/**
 * A ZooKeeperClusterState survives ZooKeeper being stopped and started again
 * on the same port and data dir — including the case that cut hstorm's
 * daemons off for good in the fault suite: ZooKeeper 3.8.0 accepts a client
 * that connects in the first moments of its startup, then fails to close it
 * (ZOOKEEPER-5051, an NPE in NIOServerCnxn.close) and never answers its
 * handshake; node-zookeeper-client sets no deadline on a handshake, so it
 * waited on that socket for ever. That window is milliseconds wide, so this
 * test holds it open: between the stop and the start, a listener on
 * ZooKeeper's port accepts the clients and, like that server, never answers
 * or closes (it stops listening before the real server starts; the sockets it
 * accepted stay open for the whole test).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../common/logger.js';
import type { SessionState, WatchEvent } from '../../common/cluster-state.js';
import { connectZooKeeper, type ZooKeeperClusterState, type ZooKeeperOptions } from '../../common/cluster-state/index.js';
import { ZooKeeperServer } from '../../common/zookeeper-server.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { ProcessCluster } from '../helpers/cluster-processes.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait-for.js';

const SESSION_MS = 4000;

/** Listens on `port` like ZooKeeper 3.8.0 in its first moments: accepts, reads, never answers, never closes. */
async function unansweringListener(port: number): Promise<{ held: Socket[]; stopListening: () => void; destroy: () => void }> {
  const held: Socket[] = [];
  const server: Server = createServer((s) => {
    held.push(s);
    s.on('error', () => undefined);
    s.on('data', () => undefined);
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(port, '127.0.0.1', () => res());
  });
  return {
    held,
    // Frees the port at once; the sockets it accepted stay open (close's callback would wait for them: not awaited).
    stopListening: () => server.close(),
    destroy: () => {
      for (const s of held) s.destroy();
      server.close();
    },
  };
}

describe('ZooKeeper restart', function () {
  this.timeout(180_000);
  const log = silentLogger();
  let dataDir: string;
  let port: number;
  let server: ZooKeeperServer | undefined;
  let hole: Awaited<ReturnType<typeof unansweringListener>> | undefined;
  const clients: ZooKeeperClusterState[] = [];

  const startServer = async (): Promise<ZooKeeperServer> =>
    ZooKeeperServer.start({ port, host: '127.0.0.1', dataDir, tickTimeMs: 250, forceSync: false, startTimeoutMs: 60_000 });
  const options = (): ZooKeeperOptions => ({
    servers: [`127.0.0.1:${port}`],
    root: '/restart',
    sessionTimeoutMs: SESSION_MS,
    connectTimeoutMs: 30_000,
    operationTimeoutMs: 3000,
  });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hstorm-zk-restart-'));
    port = await freePort();
    server = await startServer();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    hole?.destroy();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reads, writes, ephemeral nodes and watches come back after a restart whose first connections are never answered', async () => {
    const a = await connectZooKeeper(options(), log);
    clients.push(a);
    const b = await connectZooKeeper(options(), log);
    clients.push(b);
    await a.create('/live', undefined, { parents: true });
    await a.create('/live/a', Buffer.from('a1'), { mode: 'ephemeral' });
    await a.set('/live/a', Buffer.from('a2'));
    await a.create('/cfg', Buffer.from('c1'));
    const before: WatchEvent[] = [];
    await a.get('/cfg', (e) => before.push(e));
    const childEvents: WatchEvent[] = [];
    await b.children('/live', (e) => childEvents.push(e));
    const states: SessionState[] = [];
    a.onSessionState((s) => states.push(s));

    await server!.stop();
    server = undefined;
    hole = await unansweringListener(port);
    // Both clients reconnect every ≤ 250 ms; each is caught by a connection that will never answer.
    const { held } = hole;
    await waitFor('both clients caught by the unanswering listener', () => held.length >= 2, 30_000, 50);
    hole.stopListening();
    server = await startServer();

    await waitFor('a reads again', async () => (await a.get('/cfg')).data.toString() === 'c1', 60_000, 250);
    await waitFor('b writes again', async () => (await b.set('/cfg', Buffer.from('c2'))).version >= 1, 60_000, 250);
    // The ephemeral node is there, with its last data, held by a live session of a.
    const live = await waitFor('a\'s ephemeral node back', async () => {
      const got = await b.get('/live/a');
      return got.stat.ephemeral && got.data.toString() === 'a2' ? got : null;
    }, 60_000, 250);
    assert.ok(live);
    // The watch a set before the outage fired (at the latest for b's write), and a new one works.
    await waitFor('a\'s old watch fired', () => before.some((e) => e.path === '/cfg'), 30_000, 50);
    const fresh: WatchEvent[] = [];
    await a.get('/cfg', (e) => fresh.push(e));
    await b.set('/cfg', Buffer.from('c3'));
    await waitFor('a\'s new watch fired', () => fresh.some((e) => e.type === 'changed' && e.path === '/cfg'), 30_000, 50);
    await waitFor('b\'s children watch fired', () => childEvents.length > 0, 30_000, 50);
    assert.ok(states.includes('disconnected'), `a was told of the outage (saw ${states.join(', ')})`);
    assert.equal(states.at(-1), 'connected');
    assert.ok(a.clientReplacements >= 1, 'the stuck client was replaced');

    // The node belongs to a's session: it goes when a closes.
    await a.close();
    await waitFor('a\'s ephemeral node gone with its session', async () => (await b.exists('/live/a')) === null, 30_000, 100);
  });
});

describe('nimbus and a supervisor across a ZooKeeper restart', function () {
  this.timeout(180_000);
  let cluster: ProcessCluster | undefined;
  let hole: Awaited<ReturnType<typeof unansweringListener>> | undefined;

  before(async () => {
    cluster = await ProcessCluster.start({ supervisors: [{ id: 'sup-a', slots: 1 }], config: { 'hstorm.zookeeper.session.timeout.ms': SESSION_MS } });
  });
  after(async () => {
    hole?.destroy();
    await cluster?.stop();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs(40)}\n`);
  });

  it('both reach the restarted ZooKeeper again, with their ephemeral nodes, though their first connections are never answered', async () => {
    const c = cluster!;
    await c.stopZooKeeper();
    hole = await unansweringListener(c.zkPort);
    const { held } = hole;
    await waitFor('nimbus and the supervisor caught by the unanswering listener', () => held.length >= 2, 30_000, 50);
    hole.stopListening();
    await c.startZooKeeper();
    const restartedAt = Date.now();

    const zk = await connectZooKeeper({ servers: [c.zkConnect], root: c.root, sessionTimeoutMs: SESSION_MS, connectTimeoutMs: 30_000 }, silentLogger());
    try {
      // The supervisor beats through its store every few seconds: a beat written after the restart proves its client works.
      await waitFor('a supervisor heartbeat written after the restart', async () => {
        const { data, stat } = await zk.get(ZkPaths.supervisor('sup-a'));
        return stat.ephemeral && (JSON.parse(data.toString('utf8')) as { heartbeatAt: number }).heartbeatAt > restartedAt;
      }, 60_000, 250);
      await waitFor('nimbus back on ZooKeeper', () => /ZooKeeper client is up again/.test(c.nimbus.log()), 60_000, 250);
      const nimbusNode = await zk.exists(ZkPaths.nimbus);
      assert.ok(nimbusNode?.ephemeral, "nimbus's ephemeral node is there");
      assert.ok((await c.supervisorList()).some((s) => s.id === 'sup-a'), 'nimbus lists the supervisor');
      assert.equal((await c.cli(['list'])).code, 0, '`hstorm list` works');
      const metrics = await (await fetch(`http://127.0.0.1:${c.nimbusPort}/metrics`)).text();
      const counted = /^hstorm_nimbus_zookeeper_client_replacements_total (\d+)/m.exec(metrics);
      assert.ok(counted && Number(counted[1]) >= 1, `nimbus counts the replacement on /metrics (${counted?.[0] ?? 'no such series'})`);
      for (const p of [c.nimbus, c.supervisor('sup-a').proc]) {
        assert.ok(p.alive, `${p.name} still running`);
        assert.match(p.log(), /replacing the ZooKeeper client/, `${p.name} logged why it replaced its client`);
      }
    } finally {
      await zk.close();
    }
  });
});

describe('the first session, when the server never answers the first handshake', function () {
  this.timeout(120_000);
  let dataDir: string;
  let server: ZooKeeperServer | undefined;
  let hole: Awaited<ReturnType<typeof unansweringListener>> | undefined;

  after(async () => {
    hole?.destroy();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('connectZooKeeper replaces the stuck client and connects within its deadline', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hstorm-zk-first-'));
    const port = await freePort();
    hole = await unansweringListener(port);
    const connecting = connectZooKeeper(
      { servers: [`127.0.0.1:${port}`], root: '/first', sessionTimeoutMs: SESSION_MS, connectTimeoutMs: 60_000, operationTimeoutMs: 3000 },
      silentLogger(),
    );
    const { held } = hole;
    await waitFor('the first handshake caught by the unanswering listener', () => held.length >= 1, 30_000, 50);
    hole.stopListening();
    server = await ZooKeeperServer.start({ port, host: '127.0.0.1', dataDir, tickTimeMs: 250, forceSync: false, startTimeoutMs: 60_000 });
    // Before this fix the one client waited on its first socket until the deadline and the connect failed.
    const zk = await connecting;
    try {
      await zk.create('/x', Buffer.from('up'));
      assert.equal((await zk.get('/x')).data.toString(), 'up');
    } finally {
      await zk.close();
    }
  });
});
