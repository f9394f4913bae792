/**
 * Two-choice grouping end to end (issue 16): ZooKeeper, nimbus and two
 * supervisors as real processes, one worker on each, a spout task in each
 * worker and a 4-task bolt spread over both, one bolt task 20× slower than
 * the others. Each spout reads the bolt tasks in its own worker directly and
 * the others through the load reports their worker publishes over ZeroMQ;
 * the slow task must end up with far fewer tuples than the fast ones
 * (shuffle would give it the same share), and both workers must have routed
 * on fresh remote figures.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { decodeJson } from '../../common/cluster-state/json-node.js';
import { silentLogger } from '../../common/logger.js';
import { workerHeartbeatSchema } from '../../common/record-schemas.js';
import type { WorkerHeartbeat } from '../../common/storm-base.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { PACKAGE_ROOT, ProcessCluster, waitFor } from '../helpers/cluster-processes.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'skewed-bolt-topology.js');

async function beats(zk: ZooKeeperClusterState, topologyId: string): Promise<WorkerHeartbeat[]> {
  const dir = ZkPaths.workerbeatsOf(topologyId);
  const names = await zk.children(dir).catch(() => [] as string[]);
  const out: WorkerHeartbeat[] = [];
  for (const n of names) {
    const node = await zk.get(`${dir}/${n}`).catch(() => null);
    if (node) out.push(decodeJson(`${dir}/${n}`, node.data, workerHeartbeatSchema) as WorkerHeartbeat);
  }
  return out;
}

describe('two-choice grouping on 2 real workers', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let zk: ZooKeeperClusterState | null = null;

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({
      supervisors: [{ id: 'sup-a', slots: 1 }, { id: 'sup-b', slots: 1 }],
      config: { 'nimbus.scheduler': 'even', 'worker.heartbeat.frequency.secs': 0.5 },
    });
    zk = await connectZooKeeper({ servers: [cluster.zkConnect], root: cluster.root, sessionTimeoutMs: 10_000, connectTimeoutMs: 30_000 }, silentLogger());
  });

  after(async function () {
    this.timeout(90_000);
    await zk?.close().catch(() => undefined);
    await cluster?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs()}\n`);
  });

  it('routes fewer tuples to a deliberately slow task than to the fast ones', async () => {
    const { id } = await cluster.submit(FIXTURE, 'skewed', { 'skewed.slow.ms': 40, 'skewed.fast.ms': 2 });
    // What a task was sent: executed, plus still waiting in its queue (a slow task's shuffle share piles up there).
    const received = (bs: WorkerHeartbeat[]) =>
      new Map(bs.flatMap((b) => b.executors.filter((e) => e.component === 'work').map((e) => [e.task, { executed: e.executed + e.queueDepth, port: b.port }] as const)));
    // Start counting once both workers run and hear each other's load reports: a worker that starts late on a
    // loaded machine would otherwise make the first tuples' routing a matter of start-up order.
    const baseline = await waitFor(
      'both workers running and receiving load reports',
      async () => {
        const bs = await beats(zk!, id);
        return bs.length === 2 && received(bs).size === 4 && bs.every((b) => (b.routingLoad?.reportsReceived ?? 0) >= 3) ? received(bs) : null;
      },
      60_000,
      250,
    );
    const since = (bs: WorkerHeartbeat[]) =>
      [...received(bs)].map(([task, r]) => ({ task, port: r.port, executed: r.executed - (baseline.get(task)?.executed ?? 0) }));
    // Enough tuples that an even share would give the slow task 100 of them.
    await waitFor(
      'the bolt to receive 400 more tuples',
      async () => {
        const bs = await beats(zk!, id);
        return bs.length === 2 && since(bs).reduce((s, t) => s + t.executed, 0) >= 400 ? true : null;
      },
      60_000,
      250,
    );
    // Each worker beats on its own clock: the 400 may be all in one worker's newest beat while the other's is
    // still the baseline one (a CI run read 0 for both tasks of a worker that way). Count from beats that both
    // were written after the 400 were reached, so each worker's window covers them.
    const reached = Date.now();
    const final = await waitFor(
      'a heartbeat from each worker written after the 400',
      async () => {
        const bs = await beats(zk!, id);
        return bs.length === 2 && bs.every((b) => b.time > reached) ? bs : null;
      },
      30_000,
      100,
    );
    const tasks = since(final).sort((a, b) => a.task - b.task);
    const [slow, ...fast] = tasks;
    const fastMean = fast.reduce((s, t) => s + t.executed, 0) / fast.length;
    const summary = tasks.map((t) => `task ${t.task}@${t.port}: ${t.executed}`).join(', ');
    assert.equal(new Set(tasks.map((t) => t.port)).size, 2, `bolt tasks on both workers (${summary})`);
    for (const t of fast) assert.ok(t.executed > 0, `fast task ${t.task} was sent tuples (${summary})`);
    // Shuffle would give every task ~25 %; two-choice should give the slow one a few %. Generous margin: under a third of a fast task's count.
    assert.ok(slow!.executed < fastMean / 3, `slow task was sent ${slow!.executed}, fast tasks ${fastMean.toFixed(0)} on average (${summary})`);
    for (const b of final) {
      const r = b.routingLoad;
      assert.ok(r, `worker ${b.port} reports its load routing`);
      assert.ok(r.reportsReceived > 0 && r.freshReads > 0, `worker ${b.port} routed on its peer's load reports: ${JSON.stringify(r)}`);
      assert.equal(r.reportsDropped, 0);
    }
  });
});
