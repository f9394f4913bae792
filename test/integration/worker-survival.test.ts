/**
 * Routine events leave healthy workers running (real ZooKeeper, nimbus, two
 * supervisors and workers, started through the CLI): a ZooKeeper outage
 * (ZooKeeper frozen) longer than nimbus.task.timeout.secs restarts and moves nothing; a
 * supervisor killed with -9 and started again adopts the workers it left (and
 * still restarts one that then dies); losing a node moves only that node's
 * executors, the other node's workers keep running.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TopologyDetail } from '../../nimbus/views.js';
import { readAcked } from '../fixtures/acking-topology.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, holdFaultFor, waitFor } from '../helpers/cluster-processes.js';

const ACKING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const SPOUTS = 2;
const TASK_TIMEOUT_SECS = 3;

/** worker key → pid, of every worker that heartbeats. */
function pidsBySlot(d: TopologyDetail): Map<string, number> {
  return new Map(d.workers.flatMap((w) => (w.metrics ? [[`${w.supervisor}:${w.port}`, w.metrics.pid] as const] : [])));
}

function allRunning(d: TopologyDetail): boolean {
  return d.workers.length > 0 && d.workers.every((w) => w.liveness === 'alive' && w.metrics !== null && w.metrics.epoch === d.epoch && processAlive(w.metrics.pid));
}

function ackedTotal(dir: string): number {
  let n = 0;
  for (let t = 0; t < SPOUTS; t++) n += readAcked(dir, t).size;
  return n;
}

describe('healthy workers survive routine events (real processes)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let dir: string;
  let initial: TopologyDetail;

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({
      supervisors: [
        { id: 'sup-a', slots: 4 },
        { id: 'sup-b', slots: 4 },
      ],
      config: {
        // Long enough that a supervisor restarted on a loaded machine is back before its session ends.
        'hstorm.zookeeper.session.timeout.ms': 8000,
        'nimbus.task.timeout.secs': TASK_TIMEOUT_SECS,
        'nimbus.monitor.freq.secs': 0.5,
        'supervisor.monitor.frequency.secs': 0.5,
        'nimbus.scheduler': 'even',
      },
    });
    dir = join(cluster.dir, 'acked');
    mkdirSync(dir, { recursive: true });
    await cluster.submit(ACKING, 'survivor', { 'acking.dir': dir, 'acking.messages': 1_000_000, 'acking.rate': 200, 'acking.spouts': SPOUTS, 'topology.workers': 4 });
    initial = await describeWhen('all four workers running', (d) => allRunning(d) && d.workers.length === 4);
    cluster.trackPids(pidsBySlot(initial).values());
    assert.deepEqual(new Set(initial.workers.map((w) => w.supervisor)), new Set(['sup-a', 'sup-b']), 'spread over both nodes');
    await waitFor('acking', () => ackedTotal(dir) >= 20, 30_000);
  });

  after(async function () {
    this.timeout(90_000);
    await cluster?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs(40)}\n`);
  });

  const describeWhen = (what: string, ok: (d: TopologyDetail) => boolean, timeoutMs = 45_000): Promise<TopologyDetail> =>
    waitFor(what, async () => {
      const d = await cluster.describe('survivor');
      return ok(d) ? d : null;
    }, timeoutMs, 250);

  const ackingResumes = async (): Promise<void> => {
    const from = ackedTotal(dir);
    await waitFor('acking resumed', () => ackedTotal(dir) >= from + 50, 30_000, 100);
  };

  it('keeps every worker through a ZooKeeper outage longer than the task timeout', async () => {
    cluster.freezeZooKeeper();
    try {
      // The fault itself, not a wait for a condition: ZooKeeper must stay unreachable for longer than
      // nimbus.task.timeout.secs, so that every heartbeat in it goes stale — the outage's length is
      // what is under test. Nothing is asserted about this interval; what follows waits on conditions.
      await holdFaultFor((TASK_TIMEOUT_SECS + 2) * 1000);
    } finally {
      cluster.thawZooKeeper();
    }
    const back = Date.now();
    // Every worker heartbeats through ZooKeeper again, twice: by then both the supervisors (every 0.5 s)
    // and nimbus have judged the workers on what they saw after reconnecting.
    const after = await describeWhen('fresh heartbeats from every worker', (d) => allRunning(d) && d.workers.every((w) => (w.metrics?.heartbeatTime ?? 0) > back + 1500));
    await ackingResumes();
    assert.equal(after.epoch, initial.epoch, 'nimbus moved nothing');
    assert.deepEqual(pidsBySlot(after), pidsBySlot(initial), 'no worker restarted');
    assert.ok(!/restarting a hung worker/.test(cluster.logs(400)), 'no supervisor restarted a worker');
  });

  it('adopts the workers a kill -9ed supervisor left, and still restarts one that then dies', async () => {
    const mine = initial.workers.filter((w) => w.supervisor === 'sup-a');
    const logLen = cluster.supervisor('sup-a').proc.log().length;
    await cluster.kill9SupervisorOnly('sup-a');
    const again = cluster.respawnSupervisor('sup-a');
    await waitFor('sup-a adopted its workers', () => (again.log().slice(logLen).match(/adopted a worker left running/g) ?? []).length === mine.length, 30_000, 100);
    await ackingResumes();
    const after = await describeWhen('all running', allRunning);
    assert.equal(after.epoch, initial.epoch, 'nimbus moved nothing');
    assert.deepEqual(pidsBySlot(after), pidsBySlot(initial), 'no worker restarted');

    // The adopted worker is watched like one it started: killed, it comes back on its slot.
    const victim = mine[0]!;
    const slot = `${victim.supervisor}:${victim.port}`;
    process.kill(victim.metrics!.pid, 'SIGKILL');
    const replaced = await describeWhen('the killed worker replaced on its slot', (d) => allRunning(d) && pidsBySlot(d).get(slot) !== victim.metrics!.pid && pidsBySlot(d).has(slot));
    cluster.trackPids(pidsBySlot(replaced).values());
    assert.equal(replaced.epoch, initial.epoch, 'restarted in place, not moved');
    initial = replaced;
  });

  it('moves only the executors of a lost node; the other node keeps its workers', async () => {
    const stay = new Map([...pidsBySlot(initial)].filter(([k]) => k.startsWith('sup-a:')));
    await cluster.kill9Supervisor('sup-b');
    const after = await describeWhen('the lost executors running on sup-a', (d) => allRunning(d) && d.epoch !== initial.epoch && d.workers.every((w) => w.supervisor === 'sup-a'), 60_000);
    cluster.trackPids(pidsBySlot(after).values());
    for (const [slot, pid] of stay) assert.equal(pidsBySlot(after).get(slot), pid, `worker ${slot} kept running`);
    await ackingResumes();
  });
});
