/**
 * Cluster mode end to end, every piece a separate OS process started through
 * the CLI (test/helpers/cluster-processes.ts): `hstorm dev-zookeeper`, `hstorm
 * nimbus`, two `hstorm supervisor`s, and the workers they launch. Topologies go
 * in with `hstorm submit` and are watched with `hstorm list/describe --json`.
 *
 * One cluster serves the whole file; each test submits its own topology and
 * kills it before it ends. The fault tests run in the order that keeps the
 * cluster usable: bad input, nimbus restart and a supervisor's session expiry
 * leave every daemon running; the supervisor kill -9 comes last.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import * as zmq from 'zeromq';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { silentLogger } from '../../common/logger.js';
import { encodeBatch, type WireTuple } from '../../worker/index.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { SENTENCES } from '../../examples/word-count/index.js';
import type { TopologyDetail, WorkerDetail } from '../../nimbus/views.js';
import { readAcked } from '../fixtures/acking-topology.js';
import { PACKAGE_ROOT, ProcessCluster, isWorkerProcess, processAlive, waitFor } from '../helpers/cluster-processes.js';

const WORD_COUNT = join(PACKAGE_ROOT, 'dist', 'examples', 'word-count', 'index.js');
const ACKING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const THROWING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'throwing-topology.js');
const SPOUTS = 2;

type Executors = Map<number, string>;

function executorsOf(d: TopologyDetail): Executors {
  const out: Executors = new Map();
  for (const w of d.workers) for (const e of w.executors) for (const t of e.tasks) out.set(t, e.component);
  return out;
}

function pidsOf(d: TopologyDetail): number[] {
  return d.workers.flatMap((w) => (w.metrics ? [w.metrics.pid] : []));
}

/** Every assigned worker heartbeats from a live process, for the current assignment. */
function allRunning(d: TopologyDetail): boolean {
  return (
    d.workers.length > 0 &&
    d.workers.every((w) => w.liveness === 'alive' && w.metrics !== null && w.metrics.epoch === d.epoch && processAlive(w.metrics.pid))
  );
}

/** A process's state letter from /proc (R, S, T for stopped, …); null when it is gone. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

function ackedTotal(dir: string): number {
  let n = 0;
  for (let t = 0; t < SPOUTS; t++) n += readAcked(dir, t).size;
  return n;
}

function missingAcks(dir: string, messages: number): number[] {
  const missing: number[] = [];
  for (let t = 0; t < SPOUTS; t++) {
    const acked = readAcked(dir, t);
    for (let id = 0; id < messages; id++) if (!acked.has(id)) missing.push(t * 1e6 + id);
  }
  return missing;
}

describe('cluster mode with real processes (ZooKeeper, nimbus, 2 supervisors, workers)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let zk: ZooKeeperClusterState | null = null;
  let dataDir: string;

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({
      supervisors: [{ id: 'sup-a' }, { id: 'sup-b' }],
      config: { 'hstorm.zookeeper.session.timeout.ms': 4000, 'nimbus.scheduler': 'hetero' },
    });
    dataDir = join(cluster.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    zk = await connectZooKeeper({ servers: [cluster.zkConnect], root: cluster.root, sessionTimeoutMs: 10_000, connectTimeoutMs: 30_000 }, silentLogger());
  });

  after(async function () {
    this.timeout(90_000);
    await zk?.close().catch(() => undefined);
    await cluster?.stop();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !cluster) return;
    process.stderr.write(`${cluster.logs()}\n`);
    // What a failed test left running must not take the next test's slots.
    await cluster.killAll().catch((err: unknown) => process.stderr.write(`could not clean up topologies: ${(err as Error).message}\n`));
  });

  const describeWhen = (name: string, what: string, ok: (d: TopologyDetail) => boolean, timeoutMs = 30_000): Promise<TopologyDetail> =>
    waitFor(what, async () => {
      const d = await cluster.describe(name);
      return ok(d) ? d : null;
    }, timeoutMs, 250);

  /** Submits the acking fixture and waits until all its workers heartbeat and acks flow. */
  const submitAcking = async (name: string, messages: number, rate: number): Promise<{ dir: string; detail: TopologyDetail }> => {
    const dir = join(dataDir, name);
    mkdirSync(dir, { recursive: true });
    await cluster.submit(ACKING, name, { 'acking.dir': dir, 'acking.messages': messages, 'acking.rate': rate, 'acking.spouts': SPOUTS });
    const detail = await describeWhen(name, `${name}'s workers running`, allRunning);
    cluster.trackPids(pidsOf(detail));
    await waitFor(`${name} acking`, () => ackedTotal(dir) >= 10, 60_000);
    return { dir, detail };
  };

  const waitAllAcked = async (dir: string, messages: number, timeoutMs = 120_000): Promise<void> => {
    try {
      await waitFor('every message acked', () => missingAcks(dir, messages).length === 0, timeoutMs, 250);
    } catch (err) {
      const missing = missingAcks(dir, messages);
      throw new Error(`${(err as Error).message}: ${missing.length} not acked, e.g. ${missing.slice(0, 10).join(', ')}`);
    }
  };

  /** `hstorm kill NAME --wait S`, then its worker processes must be gone within 10 s. */
  const killTopology = async (name: string, waitSecs: number): Promise<number> => {
    const pids = new Set<number>(pidsOf(await cluster.describe(name)));
    for (const id of cluster.supervisors.keys()) for (const p of cluster.workerPids(id)) if (isWorkerProcess(p)) pids.add(p);
    const res = await cluster.cli(['kill', name, '--wait', String(waitSecs)]);
    assert.equal(res.code, 0, res.stderr);
    const gone = Date.now();
    await waitFor(`${name}'s worker processes gone`, () => [...pids].every((p) => !processAlive(p)), 30_000, 100);
    return Date.now() - gone;
  };

  it('runs word count on two supervisors: exact counts, list/describe show it, kill stops its workers', async () => {
    const perSpout = 200;
    const out = join(dataDir, 'wc-counts.jsonl');
    const submitted = await cluster.submit(WORD_COUNT, 'wc', {
      'topology.workers': 2,
      'wordcount.sentences': perSpout,
      'wordcount.parallelism.spout': 2,
      'wordcount.output': out,
    });
    assert.match(submitted.id, /^wc-/);

    const expected = new Map<string, number>();
    for (let task = 0; task < 2; task++) {
      for (let id = 0; id < perSpout; id++) {
        for (const w of SENTENCES[(id + task) % SENTENCES.length]!.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
      }
    }
    const words = [...expected.values()].reduce((a, b) => a + b, 0);
    const detail = await describeWhen('wc', 'every sentence acked', (d) => allRunning(d) && d.components.sentences?.acked === 2 * perSpout, 60_000);
    cluster.trackPids(pidsOf(detail));

    const [row] = (await cluster.list()).filter((t) => t.name === 'wc');
    assert.ok(row, 'list shows wc');
    assert.equal(row.id, submitted.id);
    assert.equal(row.status, 'active');
    assert.equal(row.workers, 2);
    assert.equal(row.unassigned, 0);

    // Placement: one worker on each supervisor, on one of its ports, with executors.
    assert.equal(detail.id, submitted.id);
    assert.equal(detail.workers.length, 2);
    assert.deepEqual(detail.workers.map((w) => w.supervisor).sort(), ['sup-a', 'sup-b']);
    for (const w of detail.workers) {
      assert.equal(w.host, '127.0.0.1');
      assert.ok(cluster.supervisor(w.supervisor).ports.includes(w.port), `port ${w.port} is one of ${w.supervisor}'s`);
      assert.ok(w.executors.length > 0 && w.executors.every((e) => e.tasks.length > 0));
      assert.ok(w.reason.length > 0);
      assert.equal(w.gpu, null);
      assert.ok(cluster.workerPids(w.supervisor).includes(w.metrics!.pid), 'the heartbeat pid is the one its supervisor launched');
    }
    // 2 spouts + 2 split + 2 count + 2 ackers, all placed.
    assert.equal(executorsOf(detail).size, 8);
    assert.deepEqual(detail.unassigned, []);
    // Component metrics.
    const c = detail.components;
    assert.deepEqual(Object.keys(c).sort(), ['__acker', 'count', 'sentences', 'split']);
    assert.equal(c.sentences!.emitted, 2 * perSpout);
    assert.equal(c.sentences!.failed, 0);
    assert.ok(c.sentences!.completeLatencyMs !== null && c.sentences!.completeLatencyMs > 0);
    assert.equal(c.split!.executed, 2 * perSpout);
    assert.equal(c.count!.executed, words);
    assert.ok(c.__acker!.executed > 0);

    const goneAfter = await killTopology('wc', 1);
    assert.ok(goneAfter < 10_000);
    assert.equal((await cluster.list()).some((t) => t.name === 'wc'), false, 'list no longer shows wc');
    const notFound = await cluster.cli(['describe', 'wc', '--json']);
    assert.notEqual(notFound.code, 0);
    assert.equal((JSON.parse(notFound.stdout) as { code: string }).code, 'HSTORM_ERR_NIMBUS_TOPOLOGY_NOT_FOUND');

    // The count bolts wrote their counts on cleanup: exact, each word counted by one task.
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { task: number; counts: Record<string, number> });
    assert.equal(lines.length, 2, 'one line per count task');
    const actual = new Map<string, number>();
    for (const { counts } of lines) {
      for (const [w, n] of Object.entries(counts)) {
        assert.equal(actual.has(w), false, `word "${w}" counted by two tasks`);
        actual.set(w, n);
      }
    }
    assert.deepEqual(Object.fromEntries([...actual].sort()), Object.fromEntries([...expected].sort()));
  });

  it('refuses a topology module that throws at load, with a clear message, and nimbus keeps serving', async () => {
    const res = await cluster.cli(['submit', THROWING, '--name', 'broken']);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /throws at load on purpose/);
    assert.match(res.stderr, /failed to load/);
    assert.match(res.stderr, /HSTORM_ERR_/);
    assert.doesNotMatch(res.stderr, /^\s+at /m, 'a message, not a stack trace');
    assert.equal((await cluster.list()).some((t) => t.name === 'broken'), false);
    assert.ok(cluster.nimbus.alive);
    const summary = (await (await fetch(`${cluster.url}/cluster/summary`)).json()) as { supervisors: number };
    assert.equal(summary.supervisors, 2);
  });

  it('keeps a worker serving through garbage on its ZeroMQ port: droppedFrames grows, nothing acked is lost', async () => {
    const messages = 300;
    const { dir, detail } = await submitAcking('garbage', messages, 30);
    const target = detail.workers.find((w) => w.executors.some((e) => e.component === 'relay'))!;
    const before = target.metrics!;
    const relayTask = target.executors.find((e) => e.component === 'relay')!.tasks[0]!;

    const push = new zmq.Push({ linger: 0 });
    push.connect(`tcp://127.0.0.1:${target.port}`);
    try {
      const full = encodeBatch(1, [[relayTask, 1, 'default', [1], null]]);
      const frames: Buffer[] = [
        Buffer.concat([Buffer.from([0xc1]), randomBytes(64)]), // 0xc1 is never valid msgpack
        full.subarray(0, full.length - 3), // a truncated batch
        Buffer.from(pack([99, 1, []])), // a batch of an unknown wire version
        encodeBatch(1, [[99_999, 1, 'default', [1], null]]), // a tuple for a task nobody has
        encodeBatch(1, [['not', 'a', 'tuple'] as unknown as WireTuple]), // a malformed tuple
      ];
      for (const f of frames) await push.send(f);
      const after = await waitFor(
        'the garbage counted in the heartbeat',
        async () => {
          const d = await cluster.describe('garbage');
          const w = d.workers.find((x) => x.supervisor === target.supervisor && x.port === target.port);
          return w?.metrics && w.metrics.droppedFrames >= before.droppedFrames + frames.length ? w : null;
        },
        15_000,
        250,
      );
      assert.equal(after.metrics!.pid, before.pid, 'the same worker process, still serving');
    } finally {
      push.close();
    }
    await waitAllAcked(dir, messages);
    const end = await cluster.describe('garbage');
    const still = end.workers.find((w) => w.supervisor === target.supervisor && w.port === target.port);
    assert.equal(still?.metrics?.pid, before.pid);
    assert.ok(still!.metrics!.heartbeatTime > before.heartbeatTime, 'it kept heartbeating');
    assert.equal(end.epoch, detail.epoch, 'nothing was rescheduled');
    await killTopology('garbage', 0);
  });

  it('keeps a topology running while nimbus restarts, and nimbus shows it again', async () => {
    const messages = 400;
    const { dir, detail } = await submitAcking('restart', messages, 25);
    await cluster.stopNimbus();
    // Nimbus is down: the CLI says so, the topology goes on acking.
    const down = await cluster.cli(['list', '--json']);
    assert.notEqual(down.code, 0);
    assert.match((JSON.parse(down.stdout) as { message: string }).message, /not reachable/);
    const ackedWhileDown = ackedTotal(dir);
    await waitFor('acks while nimbus is down', () => ackedTotal(dir) >= ackedWhileDown + 20, 60_000);
    assert.deepEqual(pidsOf(detail).filter(processAlive).sort(), pidsOf(detail).sort(), 'no worker died');

    await cluster.startNimbus();
    const row = (await cluster.list()).find((t) => t.name === 'restart');
    assert.ok(row, 'list shows the topology again');
    assert.equal(row.id, detail.id);
    assert.equal(row.status, 'active');
    const first = await describeWhen('restart', 'heartbeats seen by the new nimbus', (d) => allRunning(d) && (d.components.ids?.acked ?? 0) > 0);
    assert.equal(first.epoch, detail.epoch, 'the restarted nimbus rescheduled nothing');
    assert.deepEqual(pidsOf(first).sort(), pidsOf(detail).sort(), 'the same worker processes');
    // The new nimbus follows the heartbeats: each worker's newer than the first it showed. (Not "the acked count
    // grows": on a loaded machine the spouts may have sent all their messages by the time nimbus is back.)
    const beat0 = Math.max(...first.workers.map((w) => w.metrics!.heartbeatTime));
    await describeWhen('restart', 'newer heartbeats from every worker', (d) => d.workers.length > 0 && d.workers.every((w) => (w.metrics?.heartbeatTime ?? 0) > beat0), 60_000);
    await waitAllAcked(dir, messages);
    await killTopology('restart', 0);
  });

  it('re-registers a supervisor whose ZooKeeper session expired; the topology keeps acking', async () => {
    const messages = 500;
    const { dir, detail } = await submitAcking('expiry', messages, 25);
    const victim = detail.workers[0]!.supervisor;
    const victimPids = detail.workers.filter((w) => w.supervisor === victim).map((w) => w.metrics!.pid);
    const sup = cluster.supervisor(victim);
    sup.proc.signal('SIGSTOP');
    try {
      // Frozen past hstorm.zookeeper.session.timeout.ms (4 s): ZooKeeper ends its session and drops its node. No lower
      // bound on when: ZooKeeper counts the timeout from the client's last contact (up to a third of it before the
      // stop) and expires sessions on tick boundaries. That the node went with the session, not through the supervisor,
      // is shown by the supervisor being stopped throughout (state T), so it cannot have deleted anything itself.
      await waitFor(`${victim}'s node gone`, async () => (await zk!.exists(ZkPaths.supervisor(victim))) === null, 60_000, 200);
      assert.equal(processState(sup.proc.pid), 'T', 'the supervisor was still stopped when its node went');
      await waitFor('nimbus to drop it', async () => !(await cluster.supervisorList()).some((s) => s.id === victim), 30_000);
    } finally {
      sup.proc.signal('SIGCONT');
    }
    assert.ok(sup.proc.alive);
    await waitFor(`${victim}'s node back`, async () => (await zk!.exists(ZkPaths.supervisor(victim))) !== null, 60_000, 200);
    const listed = await waitFor('nimbus lists it again', async () => (await cluster.supervisorList()).find((s) => s.id === victim), 30_000);
    assert.deepEqual(listed.ports, sup.ports);

    // Its old workers either still run their (unchanged) slot or were stopped; every assigned worker runs.
    const settled = await describeWhen(
      'expiry',
      'every worker running and no stray worker left',
      (d) => allRunning(d) && victimPids.every((p) => !processAlive(p) || pidsOf(d).includes(p)),
      30_000,
    );
    cluster.trackPids(pidsOf(settled));
    assert.equal(new Set(executorsOf(settled).keys()).size, executorsOf(detail).size, 'every executor is placed');
    assert.deepEqual(settled.unassigned, []);
    const acked0 = ackedTotal(dir);
    await waitFor('acks after the expiry', () => ackedTotal(dir) > acked0, 60_000);
    await waitAllAcked(dir, messages);
    await killTopology('expiry', 0);
  });

  it('moves the executors of a kill -9ed supervisor to the other one within 10 s, losing nothing', async () => {
    const messages = 400;
    const { dir, detail } = await submitAcking('failover', messages, 40);
    const supervisors = new Set(detail.workers.map((w) => w.supervisor));
    assert.equal(supervisors.size, 2, 'the topology spans both supervisors');
    const victim = detail.workers.find((w) => w.executors.some((e) => e.component === 'ids'))!.supervisor;
    const survivor = [...supervisors].find((s) => s !== victim)!;
    const before = executorsOf(detail);

    const killed = await cluster.kill9Supervisor(victim);
    const t0 = Date.now();
    assert.ok(killed.length > 0, 'its workers were killed too');
    assert.ok(detail.workers.filter((w) => w.supervisor === victim).every((w) => killed.includes(w.metrics!.pid)));

    const moved = await describeWhen(
      'failover',
      `executors running on ${survivor}`,
      (d: TopologyDetail) =>
        d.workers.every((w: WorkerDetail) => w.supervisor === survivor) &&
        allRunning(d) &&
        d.workers.every((w) => w.metrics!.heartbeatTime > t0) &&
        executorsOf(d).size === before.size,
      60_000,
    );
    const took = Date.now() - t0;
    cluster.trackPids(pidsOf(moved));
    // The 10 s failover target is a speed target, measured and reported by the fault suite (docs/faults.md); here the
    // bound is generous (a loaded 2-core machine) and only catches a move that waits for something it should not.
    assert.ok(took <= 45_000, `executors ran on ${survivor} ${took} ms after the kill`);
    assert.deepEqual([...executorsOf(moved)].sort((a, b) => a[0] - b[0]), [...before].sort((a, b) => a[0] - b[0]), 'every executor, nothing dropped');
    assert.deepEqual(moved.unassigned, []);
    assert.ok(moved.epoch! > detail.epoch!);
    assert.equal((await cluster.supervisorList()).some((s) => s.id === victim), false);

    await waitAllAcked(dir, messages);
    assert.ok(existsSync(join(dir, 'spout-0.acked')) && existsSync(join(dir, 'spout-1.acked')));
    await killTopology('failover', 0);
  });
});
