/**
 * A cluster with every door locked (docs/security.md), as separate processes
 * started through the CLI: nimbus with a shared secret read from a file,
 * ZooKeeper digest ACLs on every znode, CURVE between workers. The
 * authenticated CLI submits and kills; a client without the secret is refused
 * with HSTORM_ERR_NIMBUS_UNAUTHENTICATED at every mutating route, the bundle
 * and the keys; a ZooKeeper client without the credentials can neither read
 * nor write hstorm's znodes; a plain socket cannot hand a worker a tuple; and
 * the topology still runs, its acks crossing CURVE links between two workers.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import * as zmq from 'zeromq';
import { isStateError } from '../../common/cluster-state.js';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { silentLogger } from '../../common/logger.js';
import { encodeBatch } from '../../worker/index.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { readAcked } from '../fixtures/acking-topology.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, waitFor } from '../helpers/cluster-processes.js';

const ACKING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const SECRET = 'cluster-test-secret-0123456789abcdef';
const ZK_AUTH = 'hstorm:zk-test-password';
const UNAUTHENTICATED = 'HSTORM_ERR_NIMBUS_UNAUTHENTICATED';

describe('cluster mode with every door locked (nimbus secret, ZooKeeper ACLs, CURVE)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let secretFile: string;
  let secretDir: string;
  const sessions: ZooKeeperClusterState[] = [];

  before(async function () {
    this.timeout(120_000);
    // The secret file must exist before nimbus reads it, before ProcessCluster makes its own dir.
    secretDir = await mkdtemp(join(tmpdir(), 'hstorm-secret-'));
    secretFile = join(secretDir, 'nimbus.secret');
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
    const zkAuthFile = join(secretDir, 'zk.digest');
    writeFileSync(zkAuthFile, `${ZK_AUTH}\n`, { mode: 0o600 });
    cluster = await ProcessCluster.start({
      supervisors: [{ id: 'sup-sec', slots: 2 }],
      config: { 'nimbus.auth.secret.file': secretFile, 'hstorm.zookeeper.auth.payload.file': zkAuthFile, 'hstorm.messaging.curve': true },
    });
    writeClientConfig(true);
  });

  after(async function () {
    this.timeout(90_000);
    for (const s of sessions) await s.close().catch(() => undefined);
    await cluster?.stop();
    if (secretDir) await rm(secretDir, { recursive: true, force: true });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !cluster) return;
    process.stderr.write(`${cluster.logs()}\n`);
  });

  /** The CLI's client config, with or without the secret. */
  const writeClientConfig = (withSecret: boolean): void => {
    writeFileSync(
      cluster.clientConfig,
      toYaml({ 'nimbus.host': '127.0.0.1', 'nimbus.http.port': cluster.nimbusPort, ...(withSecret && { 'nimbus.auth.secret.file': secretFile }) }),
    );
  };
  const zkClient = async (auth: string | null): Promise<ZooKeeperClusterState> => {
    const s = await connectZooKeeper({ servers: [cluster.zkConnect], root: cluster.root, sessionTimeoutMs: 10_000, connectTimeoutMs: 30_000, auth }, silentLogger());
    sessions.push(s);
    return s;
  };
  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; code: string | undefined }> => {
    const res = await fetch(`${cluster.url}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const json = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
    return { status: res.status, code: json?.error?.code };
  };

  it('runs a topology over CURVE links with ZooKeeper ACLs on; refuses every unauthenticated door; the authenticated CLI kills it', async () => {
    const dir = join(cluster.dir, 'acked');
    mkdirSync(dir, { recursive: true });
    const messages = 150;
    const { id } = await cluster.submit(ACKING, 'locked', { 'acking.dir': dir, 'acking.messages': messages, 'acking.rate': 300, 'acking.spouts': 2 });
    const detail = await waitFor(
      'both workers heartbeating',
      async () => {
        const d = await cluster.describe('locked');
        return d.workers.length === 2 && d.workers.every((w) => w.liveness === 'alive' && w.metrics && processAlive(w.metrics.pid)) ? d : null;
      },
      60_000,
      250,
    );
    cluster.trackPids(detail.workers.map((w) => w.metrics!.pid));
    const acked = (): number => readAcked(dir, 0).size + readAcked(dir, 1).size;
    await waitFor('every message acked across the CURVE links', () => acked() === 2 * messages, 60_000, 250);
    assert.match(cluster.supervisor('sup-sec').proc.log(), /CURVE keys received from nimbus/);

    // ── nimbus API: every write, the bundle and the keys need the secret ──
    const wrong = { authorization: 'Bearer not-the-secret-at-all-0000' };
    const doors: [string, string, unknown?][] = [
      ['POST', '/topologies', { name: 'evil', def: {}, config: {}, bundle: '', sha256: '0'.repeat(64) }],
      ['POST', '/topologies/locked/kill', {}],
      ['POST', '/topologies/locked/deactivate', {}],
      ['POST', '/topologies/locked/activate', {}],
      ['POST', '/topologies/locked/rebalance', { workers: 1 }],
      ['POST', `/topology/${id}/kill/0`],
      ['GET', `/topologies/${id}/bundle`],
      ['GET', `/topologies/${id}/curve-keys`],
      // Percent-escapes the router decodes: the same routes, the same lock.
      ['GET', `/topologies/${id}/%62undle`],
      ['GET', `/%74opologies/${id}/curve-keys`],
      ['POST', `/topologies/locked/%6Bill`, {}],
    ];
    for (const [method, path, body] of doors) {
      for (const headers of [{}, wrong]) {
        const r = await call(method, path, headers, body);
        assert.deepEqual(r, { status: 401, code: UNAUTHENTICATED }, `${method} ${path} ${headers === wrong ? 'with a wrong secret' : 'without a secret'}`);
      }
    }
    const keys = await call('GET', `/topologies/${id}/curve-keys`, { authorization: `Bearer ${SECRET}` });
    assert.equal(keys.status, 200, 'the right secret opens the door');
    const reads = await call('GET', '/topologies');
    assert.equal(reads.status, 200, 'reads stay open unless nimbus.auth.reads is on');

    // The CLI without the secret is refused with the code; nothing changed.
    writeClientConfig(false);
    try {
      const r = await cluster.cli(['kill', 'locked', '--wait', '0']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(UNAUTHENTICATED));
    } finally {
      writeClientConfig(true);
    }
    assert.equal((await cluster.describe('locked')).status, 'active');

    // ── ZooKeeper: no credentials, no access; the right ones work ──
    const stranger = await zkClient(null);
    for (const [what, op] of [
      ['read the topology', () => stranger.get(ZkPaths.storm(id))],
      ['list the assignments', () => stranger.children(ZkPaths.assignments)],
      ['overwrite the assignment', () => stranger.set(ZkPaths.assignment(id), Buffer.from('{}'))],
      ['create a node', () => stranger.create(`${ZkPaths.assignments}/forged`, Buffer.from('{}'))],
      ['delete the topology', () => stranger.delete(ZkPaths.storm(id))],
    ] as [string, () => Promise<unknown>][]) {
      await assert.rejects(op(), (err: unknown) => isStateError(err, 'NO_AUTH'), `a client without credentials could ${what}`);
    }
    const wrongZk = await zkClient('hstorm:another-password');
    await assert.rejects(wrongZk.get(ZkPaths.storm(id)), (err: unknown) => isStateError(err, 'NO_AUTH'));
    const friend = await zkClient(ZK_AUTH);
    assert.equal(JSON.parse((await friend.get(ZkPaths.storm(id))).data.toString('utf8')).id, id);

    // ── worker slots: a plain socket cannot even finish the handshake ──
    const w = detail.workers[0]!;
    const relay = detail.workers.flatMap((x) => x.executors).find((e) => e.component === 'relay')!.tasks[0]!;
    const push = new zmq.Push({ linger: 0 });
    const events: string[] = [];
    push.events.on('handshake:error:protocol', () => events.push('refused'));
    push.events.on('handshake', () => events.push('accepted'));
    push.connect(`tcp://127.0.0.1:${w.port}`);
    void push.send(encodeBatch(1, [[relay, 1, 'default', [77777777], null]])).catch(() => undefined);
    try {
      await waitFor('the worker to refuse the plain socket', () => events.includes('refused'), 15_000, 50);
      assert.ok(!events.includes('accepted'));
    } finally {
      push.close();
    }
    const after = await cluster.describe('locked');
    assert.equal(after.workers.find((x) => x.port === w.port)?.metrics?.pid, w.metrics!.pid, 'the worker kept serving');

    // ── the authenticated CLI can kill it ──
    const killed = await cluster.cli(['kill', 'locked', '--wait', '0']);
    assert.equal(killed.code, 0, killed.stderr);
    await waitFor('the topology gone', async () => (await cluster.list()).length === 0, 30_000, 250);
    assert.ok(!readFileSync(cluster.nimbus.logFile, 'utf8').includes(SECRET), 'nimbus never logs the secret');
  });

  it('nimbus warns at start when its API is open to the network without a secret', async () => {
    // The cluster's nimbus binds 127.0.0.1 with a secret: no warning there.
    assert.doesNotMatch(cluster.nimbus.log(), /SECURITY:/);
    writeClientConfig(false);
    let r;
    try {
      // ZooKeeper at port 1 cannot be reached: this nimbus stops right after its start-up checks.
      r = await cluster.cli(['nimbus', '--bind', '0.0.0.0', '-c', 'hstorm.zookeeper.connect.timeout.ms=100', '-c', 'hstorm.zookeeper.servers=["127.0.0.1:1"]']);
    } finally {
      writeClientConfig(true);
    }
    assert.notEqual(r.code, 0, 'it cannot reach ZooKeeper at port 1 and stops');
    assert.match(r.stdout + r.stderr, /SECURITY: nimbus HTTP API listens on 0\.0\.0\.0.*nimbus\.auth\.secret off/);
  });
});
