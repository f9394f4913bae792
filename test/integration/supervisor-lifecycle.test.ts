/**
 * Supervisors running real worker processes (the fake worker of
 * test/fixtures/fake-worker.ts): one per assigned slot, logs in files,
 * restart on death and on a hung worker, restart when executors change, stop
 * when unassigned, survive a session expiry; first through LocalCluster
 * (in-memory store over IPC), then in cluster mode against a real ZooKeeper
 * and nimbus's HTTP API (bundle download, `hstorm` link).
 */
import { processAlive, waitFor } from '../helpers/wait-for.js';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { lstat, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { LocalCluster } from '../../cli/local-cluster.js';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { buildConfig } from '../../common/config/index.js';
import { silentLogger } from '../../common/logger.js';
import type { TopologyDef } from '../../common/topology-def.js';
import type { SupervisorInfo } from '../../common/resources.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { Nimbus, startHttpApi } from '../../nimbus/index.js';
import { Supervisor, packageRoot } from '../../supervisor/index.js';
import { startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';
import { freePort } from '../helpers/ports.js';

const FAKE_WORKER = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-worker.js');
const log = silentLogger();

const DEF: TopologyDef = {
  components: [
    { id: 'spout', kind: 'spout', parallelism: 2, streams: [{ id: 'default', fields: ['x'], direct: false }], inputs: [], gpu: null, config: {} },
    { id: 'bolt', kind: 'bolt', parallelism: 2, streams: [], inputs: [{ component: 'spout', stream: 'default', grouping: { type: 'shuffle' } }], gpu: null, config: {} },
  ],
  config: {},
};

describe('supervisor worker lifecycle (local mode)', function () {
  this.timeout(60_000);
  let cluster: LocalCluster | null = null;

  const start = async (clusterConfig: Record<string, unknown> = {}, portsNeeded = 2): Promise<LocalCluster> => {
    cluster = await LocalCluster.start({
      log,
      portsNeeded,
      workerEntry: FAKE_WORKER,
      workerStopGraceMs: 3000,
      clusterConfig: { 'nimbus.scheduler': 'even', 'supervisor.gpu.discovery': 'none', ...clusterConfig },
    });
    return cluster;
  };
  const workersOf = (c: LocalCluster) => c.supervisors.flatMap((s) => s.workers());

  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
  });

  it('runs one worker per assigned slot, logging to files, and stops them when the topology is killed', async () => {
    const c = await start();
    const { topologyId } = await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 2 });
    const beats = await waitFor('two heartbeats', async () => {
      const b = await c.heartbeats(topologyId);
      return b.length === 2 ? b : null;
    });
    const workers = workersOf(c);
    assert.equal(workers.length, 2);
    assert.deepEqual(beats.map((b) => b.pid).sort(), workers.map((w) => w.pid).sort());
    // Nimbus judges liveness from heartbeats it has seen change on its own clock, so it may lag the first beat by a monitor tick.
    await waitFor('nimbus sees both workers alive with metrics', async () => {
      const detail = await c.topologyDetail('t');
      return detail.workers.length === 2 && detail.workers.every((w) => w.liveness === 'alive' && w.metrics !== null);
    });

    for (const w of workers) {
      assert.equal(w.logFile, join(c.dataDir, 'logs', topologyId, `worker-${w.port}.log`));
      const lines = (await readFile(w.logFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { msg: string; port: number });
      assert.equal(lines[0]?.msg, 'fake worker started');
      assert.equal(lines[0]?.port, w.port);
    }

    await c.kill('t');
    await waitFor('workers gone', () => workersOf(c).length === 0 && workers.every((w) => !processAlive(w.pid!)));
    for (const w of workers) assert.match(await readFile(w.logFile, 'utf8'), /fake worker stopping/, 'stopped with SIGTERM, gracefully');
  });

  it('restarts a worker that dies, at once', async () => {
    // Monitor ticks 10 min apart: a restart inside the (generous, for a loaded machine) 60 s deadline below can only
    // have come from the exit event, so "at once" needs no wall-clock bound.
    const c = await start({ 'supervisor.monitor.frequency.secs': 600 });
    await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 1 });
    const first = await waitFor('a worker', () => workersOf(c).find((w) => w.alive));
    process.kill(first.pid!, 'SIGKILL');
    const second = await waitFor('the restart', () => workersOf(c).find((w) => w.alive && w.pid !== first.pid), 60_000, 50);
    assert.equal(second.port, first.port);
    assert.equal(second.launches, 2);
  });

  it('restarts a worker that crashes on start, then keeps it', async () => {
    const c = await start();
    const { topologyId } = await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 1, 'fake.worker.mode': 'crash-once', 'fake.worker.crash.ms': 100 });
    await waitFor('a heartbeat after the crash', async () => (await c.heartbeats(topologyId)).length === 1);
    const w = workersOf(c)[0]!;
    assert.equal(w.launches, 2);
    const log = await readFile(w.logFile, 'utf8');
    assert.match(log, /crashing on purpose/);
    assert.equal(log.match(/fake worker started/g)?.length, 2);
  });

  it('restarts a worker that never heartbeats', async () => {
    const c = await start({ 'supervisor.worker.start.timeout.secs': 1, 'nimbus.task.timeout.secs': 30 }, 1);
    await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 1, 'fake.worker.mode': 'hang' });
    const first = await waitFor('a worker', () => workersOf(c).find((w) => w.alive));
    // start timeout 1 s + SIGTERM grace 3 s + relaunch; generous bound for a loaded CI machine.
    await waitFor('the hung worker replaced', () => !processAlive(first.pid!) && workersOf(c).some((w) => w.alive && w.pid !== first.pid), 60_000);
  });

  it('restarts a worker whose executors change and stops one no longer assigned', async () => {
    const c = await start({}, 3);
    await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 3 });
    const before = await waitFor('three workers', () => {
      const ws = workersOf(c).filter((w) => w.alive);
      return ws.length === 3 ? ws : null;
    });
    await c.rebalance('t', { workers: 1 });
    const after = await waitFor('one worker', () => {
      const ws = workersOf(c);
      return ws.length === 1 && ws[0]!.alive ? ws : null;
    });
    // The remaining worker now holds every executor: it was restarted, the other two stopped.
    assert.ok(!before.some((w) => w.pid === after[0]!.pid));
    await waitFor('old workers gone', () => before.every((w) => !processAlive(w.pid!)));
    const detail = await c.topologyDetail('t');
    assert.equal(detail.workers.length, 1);
    assert.equal(detail.workers[0]!.executors.reduce((n, e) => n + e.tasks.length, 0), 2 + 2 + 1);
  });

  it('keeps its workers through a session expiry and registers again', async () => {
    const c = await start();
    await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 2 });
    const before = await waitFor('two workers', () => {
      const ws = workersOf(c).filter((w) => w.alive);
      return ws.length === 2 ? ws : null;
    });
    const epoch = (await c.topologyDetail('t')).epoch;
    const expiredAt = Date.now();
    assert.ok(c.expireSupervisorSession(0));
    // Registered again: nimbus reads a supervisor node written after the expiry (the beat on reconnect)…
    const reader = c.store.session();
    await waitFor('a supervisor beat after the expiry', async () => {
      const info = JSON.parse((await reader.get(ZkPaths.supervisor(c.supervisors[0]!.id))).data.toString('utf8')) as SupervisorInfo;
      return info.heartbeatAt >= expiredAt;
    }, 60_000, 50);
    await reader.close();
    // …and a whole nimbus round with heartbeat checks has run after it: had the expiry made nimbus move the topology,
    // it would have by now. Waiting on these two events replaces a fixed sleep that a loaded machine can outlast.
    await c.nimbus.reconcileNow();
    const summary = await c.nimbus.readModel.clusterSummary();
    assert.equal(summary.supervisors, 1);
    assert.deepEqual(workersOf(c).map((w) => w.pid).sort(), before.map((w) => w.pid).sort());
    assert.ok(before.every((w) => processAlive(w.pid!)));
    assert.equal((await c.topologyDetail('t')).epoch, epoch);
  });

  it('stops every worker on shutdown', async () => {
    const c = await start();
    await c.submit('t', '/nowhere/topology.mjs', DEF, { 'topology.workers': 2 });
    const ws = await waitFor('two workers', () => {
      const x = workersOf(c).filter((w) => w.alive);
      return x.length === 2 ? x : null;
    });
    await c.shutdown();
    assert.ok(ws.every((w) => !processAlive(w.pid!)));
  });
});

describe('supervisor in cluster mode (ZooKeeper, bundle from nimbus)', function () {
  this.timeout(60_000);
  let zk: TestZooKeeper;
  let dir: string;
  const states: ZooKeeperClusterState[] = [];

  before(async () => {
    zk = await startTestZooKeeper();
    dir = await mkdtemp(join(tmpdir(), 'hstorm-sup-test-'));
  });
  after(async () => {
    for (const s of states) await s.close().catch(() => undefined);
    await zk?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('downloads and verifies the bundle, links hstorm, and runs a worker over ZooKeeper', async () => {
    const root = `/t-${randomUUID().slice(0, 8)}`;
    const httpPort = await freePort();
    const base = {
      'hstorm.zookeeper.servers': [zk.connectString],
      'hstorm.zookeeper.root': root,
      'nimbus.http.port': httpPort,
      'nimbus.scheduler': 'even',
      'supervisor.gpu.discovery': 'none',
    };
    const connect = async () => {
      const s = await connectZooKeeper({ servers: [zk.connectString], root, sessionTimeoutMs: 4000, connectTimeoutMs: 30_000 }, log);
      states.push(s);
      return s;
    };
    const nimbusConfig = buildConfig([{ ...base, 'hstorm.local.dir': join(dir, 'nimbus') }], { allowUserKeys: false });
    const nimbus = new Nimbus({ state: await connect(), config: nimbusConfig, log, advertise: { host: '127.0.0.1', port: httpPort } });
    const { app } = await startHttpApi({ nimbus, log, host: '127.0.0.1', port: httpPort });
    await nimbus.start();
    const supDir = join(dir, 'sup');
    const supConfig = buildConfig([{ ...base, 'hstorm.local.dir': supDir, 'supervisor.id': 'node-1', 'supervisor.slots.ports': [await freePort()] }], {
      allowUserKeys: false,
    });
    const sup = new Supervisor({ state: await connect(), config: supConfig, log, workerEntry: FAKE_WORKER, workerStopGraceMs: 3000 });
    await sup.start();
    try {
      const code = Buffer.from("import { TopologyBuilder } from 'hstorm';\nexport default TopologyBuilder;\n");
      const gz = gzipSync(code);
      const sha256 = createHash('sha256').update(gz).digest('hex');
      const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1/topologies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'zk', def: DEF, config: { 'topology.workers': 1 }, bundle: gz.toString('base64'), sha256 }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      const { id } = (await res.json()) as { id: string };

      const detail = await waitFor('a heartbeat through ZooKeeper', async () => {
        const d = await nimbus.readModel.topologyDetail('zk');
        return d.workers[0]?.metrics ? d : null;
      });
      assert.equal(detail.workers[0]!.supervisor, 'node-1');
      const file = join(supDir, 'stormdist', id, 'topology.mjs');
      assert.deepEqual(await readFile(file), code);
      const link = join(supDir, 'node_modules', 'hstorm');
      assert.ok((await lstat(link)).isSymbolicLink());
      assert.equal(await readlink(link), packageRoot());
      const logLine = JSON.parse((await readFile(sup.workers()[0]!.logFile, 'utf8')).split('\n')[0]!) as { modulePath: string };
      assert.equal(logLine.modulePath, file);

      await nimbus.kill('zk', 0);
      await waitFor('the worker stopped', () => sup.workers().length === 0);
      // The killed topology's code goes from the supervisor and from nimbus's blob store.
      await waitFor('its code deleted on the supervisor', async () => !(await lstat(join(supDir, 'stormdist', id)).catch(() => null)));
      await waitFor('its bundle deleted on nimbus', async () => !(await lstat(join(dir, 'nimbus', 'blobs', `${sha256}.gz`)).catch(() => null)));
    } finally {
      await sup.stop();
      await app.close();
      await nimbus.stop();
    }
  });
});
