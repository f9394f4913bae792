/**
 * Liveness apart from metrics, end to end over a real ZooKeeper and nimbus's
 * HTTP API, with a real supervisor running real (fake-worker) processes:
 * - nimbus hears that a worker lives from its supervisor's one message per
 *   period, so a worker whose metrics record does not change for many task
 *   timeouts stays where it is, and costs ZooKeeper no write meanwhile;
 * - a worker whose local beat stops (SIGSTOP) is declared dead by nimbus and
 *   moved, though its supervisor keeps reporting;
 * - a malformed report is refused with 400, counted, and nimbus keeps serving;
 * - against a real ZooKeeper, nimbus's watched cache sees its own session's
 *   write at once (ZooKeeper delivers the watch before the write's reply).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { Assignment } from '../../common/assignment.js';
import { WatchedNodeCache } from '../../common/cluster-state/watched-node-cache.js';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { buildConfig, type RawConfig } from '../../common/config/index.js';
import { silentLogger } from '../../common/logger.js';
import type { TopologyDef } from '../../common/topology-def.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { Nimbus, startHttpApi } from '../../nimbus/index.js';
import { Supervisor } from '../../supervisor/index.js';
import { freePort } from '../helpers/ports.js';
import { processAlive, waitFor } from '../helpers/wait-for.js';
import { startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';

const FAKE_WORKER = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-worker.js');
const log = silentLogger();
const TASK_TIMEOUT_SECS = 5;

const DEF: TopologyDef = {
  components: [{ id: 'spout', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['x'], direct: false }], inputs: [], gpu: null, config: {} }],
  config: {},
};

describe('worker liveness through the supervisor (ZooKeeper, HTTP, real processes)', function () {
  this.timeout(180_000);
  let zk: TestZooKeeper;
  let dir: string;
  const states: ZooKeeperClusterState[] = [];
  let nimbus: Nimbus;
  let app: Awaited<ReturnType<typeof startHttpApi>>['app'];
  let sup: Supervisor;
  let base: string;
  let reader: ZooKeeperClusterState;

  const connect = async (root: string) => {
    const s = await connectZooKeeper({ servers: [zk.connectString], root, sessionTimeoutMs: 6000, connectTimeoutMs: 10_000 }, log);
    states.push(s);
    return s;
  };

  before(async () => {
    zk = await startTestZooKeeper();
    dir = await mkdtemp(join(tmpdir(), 'hstorm-liveness-'));
    const root = `/t-${randomUUID().slice(0, 8)}`;
    const httpPort = await freePort();
    const cluster: RawConfig = {
      'hstorm.zookeeper.servers': [zk.connectString],
      'hstorm.zookeeper.root': root,
      'nimbus.http.port': httpPort,
      'nimbus.scheduler': 'even',
      'nimbus.task.timeout.secs': TASK_TIMEOUT_SECS,
      'supervisor.gpu.discovery': 'none',
      // The supervisor never restarts a hung worker here: what moves one can only be nimbus's verdict.
      'supervisor.monitor.frequency.secs': 600,
    };
    nimbus = new Nimbus({ state: await connect(root), config: buildConfig([{ ...cluster, 'hstorm.local.dir': join(dir, 'nimbus') }], { allowUserKeys: false }), log, advertise: { host: '127.0.0.1', port: httpPort } });
    ({ app } = await startHttpApi({ nimbus, log, host: '127.0.0.1', port: httpPort }));
    await nimbus.start();
    const supConfig = buildConfig([{ ...cluster, 'hstorm.local.dir': join(dir, 'sup'), 'supervisor.id': 'node-1', 'supervisor.slots.ports': [await freePort(), await freePort()] }], {
      allowUserKeys: false,
    });
    sup = new Supervisor({ state: await connect(root), config: supConfig, log, workerEntry: FAKE_WORKER, workerStopGraceMs: 3000 });
    await sup.start();
    base = `http://127.0.0.1:${httpPort}/api/v1`;
    reader = await connect(root);
  });
  after(async function () {
    this.timeout(60_000);
    await sup?.stop().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await nimbus?.stop().catch(() => undefined);
    for (const s of states) await s.close().catch(() => undefined);
    await zk?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function submit(name: string): Promise<string> {
    const gz = gzipSync(Buffer.from("export default null;\n"));
    const sha256 = createHash('sha256').update(gz).digest('hex');
    // A record period far beyond the test: after the first record, news of the worker can only come from its supervisor.
    const config = { 'topology.workers': 1, 'topology.stats.report.secs': 3600 };
    const res = await fetch(`${base}/topologies`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, def: DEF, config, bundle: gz.toString('base64'), sha256 }) });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { id: string }).id;
  }

  const assignmentOf = async (id: string) => JSON.parse((await reader.get(ZkPaths.assignment(id))).data.toString('utf8')) as Assignment;

  it('keeps a worker whose record does not change for many task timeouts, on its supervisor\'s word alone', async () => {
    const id = await submit('quiet');
    const detail = await waitFor('the worker alive', async () => {
      const d = await nimbus.readModel.topologyDetail('quiet');
      return d.workers[0]?.liveness === 'alive' ? d : null;
    }, 60_000);
    const w = detail.workers[0]!;
    const recordPath = ZkPaths.workerbeat(id, w.supervisor, w.port);
    const record = await reader.get(recordPath);
    const beats0 = nimbus.readModel.nimbusHealth().liveness.beats;
    // Three task timeouts' worth of beats (one a second), counted rather than slept.
    await waitFor('3 task timeouts of beats', () => nimbus.readModel.nimbusHealth().liveness.beats >= beats0 + 3 * TASK_TIMEOUT_SECS, 120_000, 250);
    await nimbus.reconcileNow();
    const health = nimbus.readModel.nimbusHealth();
    assert.equal(health.liveness.reportingSupervisors, 1);
    assert.equal((await assignmentOf(id)).epoch, 1, 'not moved');
    assert.equal((await nimbus.readModel.topologyDetail('quiet')).workers[0]!.liveness, 'alive');
    assert.equal((await reader.exists(recordPath))!.version, record.stat.version, 'no ZooKeeper write for liveness');
    await nimbus.kill('quiet', 0);
    await waitFor('its worker stopped', () => sup.workers().length === 0, 60_000);
  });

  it('moves a worker whose local beat stops, though its supervisor keeps reporting', async () => {
    const id = await submit('hung');
    const w = await waitFor('the worker alive', async () => {
      const d = await nimbus.readModel.topologyDetail('hung');
      const x = d.workers[0];
      const proc = sup.workers().find((p) => p.port === x?.port && p.alive);
      return x?.liveness === 'alive' && proc ? { port: x.port, pid: proc.pid! } : null;
    }, 60_000);
    const reports0 = nimbus.readModel.nimbusHealth().liveness.reports;
    process.kill(w.pid, 'SIGSTOP');
    try {
      const moved = await waitFor('the move', async () => {
        const a = await assignmentOf(id);
        return a.epoch > 1 ? a : null;
      }, 90_000, 250);
      assert.notEqual(moved.workers[0]!.port, w.port);
      assert.ok(nimbus.readModel.nimbusHealth().liveness.reports > reports0, 'the supervisor kept reporting meanwhile');
    } finally {
      process.kill(w.pid, 'SIGCONT');
    }
    await waitFor('the hung worker stopped by its supervisor', () => !processAlive(w.pid), 60_000);
    await nimbus.kill('hung', 0);
    await waitFor('its worker stopped', () => sup.workers().length === 0, 60_000);
  });

  it('refuses a malformed report with 400, counts it, and keeps serving', async () => {
    const refused0 = nimbus.readModel.nimbusHealth().liveness.refused;
    const post = (sup: string, body: unknown) => fetch(`${base}/supervisors/${sup}/worker-beats`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const good = { type: 'worker-beats', version: 1, supervisorId: 'other', workers: [] };
    for (const [sup, body] of [
      ['other', { type: 'worker-beats', version: 2, supervisorId: 'other', workers: [] }],
      ['other', { ...good, workers: [{ topologyId: 't', port: 'x', pid: 1, epoch: null, ageMs: 0 }] }],
      ['other', { ...good, workers: [{ topologyId: 't', port: 6700, pid: 1, epoch: null, ageMs: -5 }] }],
      ['someone-else', good],
      ['other', 'not even an object'],
    ] as const) {
      const res = await post(sup, body);
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'HSTORM_ERR_NIMBUS_BAD_REQUEST');
    }
    assert.equal(nimbus.readModel.nimbusHealth().liveness.refused, refused0 + 5);
    assert.equal((await post('other', good)).status, 204);
    const res = await fetch(`${base}/nimbus/health`);
    assert.equal(res.status, 200);
    // The whole of process.memoryUsage(), and the heap after a major collection once one ran (the scale soak's floor).
    const { memory } = (await res.json()) as { memory: Record<string, number | null> };
    for (const k of ['rssBytes', 'heapUsedBytes', 'heapTotalBytes', 'externalBytes', 'arrayBuffersBytes', 'majorGcs']) assert.equal(typeof memory[k], 'number', k);
    assert.ok(memory.heapAfterMajorGcBytes === null || (memory.heapAfterMajorGcBytes! > 0 && memory.heapAfterMajorGcBytes! <= memory.heapTotalBytes!));
  });

  it("sees its own session's write at once through the watched cache (ZooKeeper's watch-before-reply order)", async () => {
    const state = states[0]!;
    const cache = new WatchedNodeCache(state);
    const schema = z.object({ i: z.number() });
    const path = '/cache-order';
    await state.create(path, Buffer.from(JSON.stringify({ i: -1 })));
    try {
      for (let i = 0; i < 200; i++) {
        await cache.get(path);
        await state.set(path, Buffer.from(JSON.stringify({ i })));
        assert.equal((await cache.readJson(path, schema))?.value.i, i, `write ${i} seen at once`);
      }
    } finally {
      cache.close();
    }
  });
});
