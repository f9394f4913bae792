/**
 * The exact-count fault suite (`npm run test:faults`): a real ZooKeeper,
 * nimbus and two supervisors, each started through the CLI
 * (test/helpers/cluster-processes.ts), and one fault at a time against a
 * topology whose two spout tasks emit ids 0 … N−1 each with replay on fail
 * and whose sink records every id it executes (test/fixtures/acking-topology.ts
 * with `acking.sink.record`). For each fault:
 *   - lost: ids that never reached the sink — must be 0 (at-least-once), and
 *     every id must be acked to its spout;
 *   - duplicates: executions beyond the first, counted and reported;
 *   - recovery: seconds from the end of the fault until every spout task acks
 *     again (target 10 s; asserted only against a generous bound, since on a
 *     loaded machine it is a measurement, not a property);
 *   - every daemon alive and serving: ZooKeeper answers, nimbus's API and
 *     `hstorm list` answer, both supervisors are registered.
 * The table is printed at the end (and written to $HSTORM_FAULTS_REPORT when
 * set); docs/faults.md holds a run of it.
 *
 * Faults run in an order that keeps the cluster whole for the next: bad
 * input first, the supervisor kill -9 (then restarted) last. Tests whose
 * title ends in "(core)" are what `npm test` runs (scripts/test.sh: the whole
 * suite takes ~6 min on a 2-core machine, the core ~3).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import * as zmq from 'zeromq';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { silentLogger } from '../../common/logger.js';
import { ACKER_COMPONENT } from '../../common/topology-def.js';
import { encodeBatch, stampOf, type WireTuple } from '../../worker/index.js';
import { ZkPaths } from '../../common/zk-paths.js';
import type { TopologyDetail } from '../../nimbus/views.js';
import { readAcked, readSinkIds } from '../fixtures/acking-topology.js';
import { PACKAGE_ROOT, ProcessCluster, isWorkerProcess, processAlive, holdFaultFor, waitFor } from '../helpers/cluster-processes.js';

const ACKING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const SPOUTS = 2;
/**
 * Ids per spout task and the rate they are emitted at, so that every fault ends while ids still flow: ~15 s of traffic
 * for a fault that is over at once (a kill, bad input), ~30 s for one that lasts (a stopped process, a ZooKeeper outage).
 */
const SHORT = 300;
const LONG = 600;
const RATE = 20;
/** The recovery target (issue 14) and the bound asserted: a loaded 2-core machine can miss the target without a bug. */
const RECOVERY_TARGET_SEC = 10;
const RECOVERY_BOUND_SEC = 60;
const SESSION_TIMEOUT_MS = 4000;

interface FaultResult {
  fault: string;
  recoverySec: number | null;
  lost: number;
  unacked: number;
  duplicates: number;
  delivered: number;
  daemons: string;
}

const results: FaultResult[] = [];

export function faultTable(rows: readonly FaultResult[]): string {
  const lines = [
    '| fault | recovery s | lost | duplicates | ids delivered | daemons and invariants |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.fault} | ${r.recoverySec === null ? 'never' : r.recoverySec.toFixed(1) + (r.recoverySec > RECOVERY_TARGET_SEC ? ' (over target)' : '')} | ` +
        `${r.lost}${r.unacked ? ` (${r.unacked} unacked)` : ''} | ${r.duplicates} | ${r.delivered} | ${r.daemons} |`,
    ),
  ];
  return lines.join('\n');
}

function pidsOf(d: TopologyDetail): number[] {
  return d.workers.flatMap((w) => (w.metrics ? [w.metrics.pid] : []));
}

function allRunning(d: TopologyDetail): boolean {
  return (
    d.workers.length > 0 &&
    d.workers.every((w) => w.liveness === 'alive' && w.metrics !== null && w.metrics.epoch === d.epoch && processAlive(w.metrics.pid))
  );
}

/** Tests tagged so in their title form the subset `npm test` runs (scripts/test.sh); `npm run test:faults` runs all. */
const CORE = '(core)';

function ackedCounts(dir: string): number[] {
  return Array.from({ length: SPOUTS }, (_, t) => readAcked(dir, t).size);
}

/** A process's state letter from /proc (T: stopped); null when it is gone. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

describe('exact-count fault suite (ZooKeeper, nimbus, 2 supervisors through the CLI)', function () {
  this.timeout(600_000);
  let cluster: ProcessCluster;
  let zk: ZooKeeperClusterState | null = null;
  let dataDir: string;

  before(async function () {
    this.timeout(180_000);
    cluster = await ProcessCluster.start({
      supervisors: [{ id: 'sup-a' }, { id: 'sup-b' }],
      config: { 'hstorm.zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS, 'nimbus.scheduler': 'even' },
    });
    dataDir = join(cluster.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    zk = await connectZooKeeper({ servers: [cluster.zkConnect], root: cluster.root, sessionTimeoutMs: 30_000, connectTimeoutMs: 30_000 }, silentLogger());
  });

  after(async function () {
    this.timeout(120_000);
    const table = faultTable(results);
    process.stdout.write(`\n${table}\n`);
    if (process.env.HSTORM_FAULTS_REPORT) writeFileSync(process.env.HSTORM_FAULTS_REPORT, `${table}\n`);
    await zk?.close().catch(() => undefined);
    await cluster?.stop();
  });

  afterEach(async function () {
    if (!cluster) return;
    if (this.currentTest?.state === 'failed') process.stderr.write(`${cluster.logs(30)}\n`);
    // A fault that failed half way must not leave its topology holding the next one's slots.
    await waitFor('nimbus serving, to clean up', async () => (await fetch(`${cluster.url}/cluster/summary`)).ok, 120_000, 500).catch(() => undefined);
    await cluster.killAll().catch((err: unknown) => process.stderr.write(`could not clean up topologies: ${(err as Error).message}\n`));
    await waitFor('no topology left', async () => (await cluster.list()).length === 0, 60_000, 500).catch(() => undefined);
  });

  const describeWhen = (name: string, what: string, ok: (d: TopologyDetail) => boolean, timeoutMs = 120_000): Promise<TopologyDetail> =>
    waitFor(what, async () => {
      const d = await cluster.describe(name);
      return ok(d) ? d : null;
    }, timeoutMs, 250);

  /** Submits the topology and waits until every worker runs and every spout task has acked a few ids. */
  const submit = async (name: string, messages: number, extra: Record<string, unknown> = {}): Promise<{ dir: string; detail: TopologyDetail }> => {
    const dir = join(dataDir, name);
    mkdirSync(dir, { recursive: true });
    await cluster.submit(ACKING, name, { 'acking.dir': dir, 'acking.messages': messages, 'acking.rate': RATE, 'acking.spouts': SPOUTS, 'acking.sink.record': true, ...extra });
    const detail = await describeWhen(name, `${name}'s workers running`, allRunning);
    cluster.trackPids(pidsOf(detail));
    await waitFor(`${name}: every spout task acking`, () => ackedCounts(dir).every((n) => n >= 10), 120_000, 100);
    return { dir, detail };
  };

  /** Seconds from `endedAt` until every spout task has acked 5 more ids than it had then (or all of its ids). */
  const recovery = async (dir: string, messages: number, endedAt: number, base: number[]): Promise<number | null> => {
    try {
      await waitFor('acking resumed on every spout task', () => ackedCounts(dir).every((n, t) => n >= Math.min(messages, base[t]! + 5)), RECOVERY_BOUND_SEC * 1000, 100);
      return (Date.now() - endedAt) / 1000;
    } catch {
      return null;
    }
  };

  /** Every daemon alive and serving; a list of what is not, empty when all are. */
  const daemonTrouble = async (): Promise<string[]> => {
    const trouble: string[] = [];
    for (const p of [cluster.zookeeper, cluster.nimbus, ...[...cluster.supervisors.values()].map((s) => s.proc)]) {
      if (!p.alive) trouble.push(`${p.name} exited ${JSON.stringify(p.exit)}`);
    }
    try {
      await waitFor('ZooKeeper answering', async () => (await zk!.exists(ZkPaths.supervisors)) !== null, 30_000, 200);
    } catch (err) {
      trouble.push(`ZooKeeper: ${(err as Error).message}`);
    }
    try {
      await waitFor('both supervisors registered with nimbus', async () => (await cluster.supervisorList()).length === 2, 60_000, 250);
    } catch (err) {
      trouble.push(`nimbus API: ${(err as Error).message}`);
    }
    const list = await cluster.cli(['list', '--json']);
    if (list.code !== 0) trouble.push(`hstorm list exited ${list.code}: ${list.stderr.trim()}`);
    return trouble;
  };

  /** Runs one fault: `inject` returns when the fault has ended (its timestamp); the rest is measured and asserted here. */
  const runFault = async (
    fault: string,
    name: string,
    messages: number,
    inject: (ctx: { dir: string; detail: TopologyDetail }) => Promise<number>,
    /** Fault-specific invariants checked once every id is acked: what is wrong, empty when nothing is. */
    afterwards: (ctx: { dir: string; detail: TopologyDetail }) => Promise<string[]> = async () => [],
    /** Topology config beside the suite's (acking.window puts a windowed bolt in the relay's place). */
    extra: Record<string, unknown> = {},
  ): Promise<void> => {
    const ctx = await submit(name, messages, extra);
    const endedAt = await inject(ctx);
    const base = ackedCounts(ctx.dir);
    const recoverySec = await recovery(ctx.dir, messages, endedAt, base);
    let unacked = 0;
    try {
      await waitFor('every id acked', () => ackedCounts(ctx.dir).every((n) => n === messages), 180_000, 250);
    } catch {
      unacked = ackedCounts(ctx.dir).reduce((s, n) => s + (messages - n), 0);
    }
    const violated = await afterwards(ctx).catch((err: unknown) => [`fault check failed: ${(err as Error).message}`]);
    const sink = readSinkIds(ctx.dir);
    let lost = 0;
    for (let t = 0; t < SPOUTS; t++) for (let n = 0; n < messages; n++) if (!sink.has(t * 1_000_000 + n)) lost++;
    let delivered = 0;
    for (const k of sink.values()) delivered += k;
    const duplicates = delivered - sink.size;
    const trouble = [...violated, ...(await daemonTrouble())];
    const result: FaultResult = { fault, recoverySec, lost, unacked, duplicates, delivered, daemons: trouble.length === 0 ? 'all serving' : trouble.join('; ') };
    results.push(result);
    process.stdout.write(`      ${fault}: recovery ${recoverySec === null ? 'never' : `${recoverySec.toFixed(1)} s`}, lost ${lost}, unacked ${unacked}, duplicates ${duplicates}, delivered ${delivered}\n`);
    const kill = await cluster.cli(['kill', name, '--wait', '0']);
    assert.equal(kill.code, 0, kill.stderr);

    assert.deepEqual(trouble, [], 'every daemon alive and serving, and the fault\'s own invariants hold');
    assert.equal(lost, 0, 'ids that never reached the sink');
    assert.equal(unacked, 0, 'ids never acked to their spout');
    assert.ok(recoverySec !== null, `acking did not resume within ${RECOVERY_BOUND_SEC} s of the end of the fault`);
  };

  it(`garbage and wrong-shaped msgpack on every worker port ${CORE}`, async () => {
    let workersBefore: number[] = [];
    await runFault(
      'garbage and wrong-shaped msgpack on every worker port',
      'f-garbage',
      SHORT,
      async ({ detail }) => {
        workersBefore = pidsOf(detail).sort();
        const tasksOf = (component: string) => detail.workers.flatMap((w) => w.executors.filter((e) => e.component === component).flatMap((e) => e.tasks));
        const ackers = tasksOf(ACKER_COMPONENT);
        const spouts = tasksOf('ids');
        const relays = tasksOf('relay');
        assert.ok(ackers.length > 0 && spouts.length > 0 && relays.length > 0, 'acker, spout and relay tasks found in describe');
        const tuple = (t: unknown[]) => t as unknown as WireTuple;
        // Stamped as the topology's, so each tuple meets the receiver's own checks; one unstamped frame is fenced as foreign.
        const stamp = stampOf(detail.id, 'forger:1', detail.epoch ?? 0);
        const enc = (rows: WireTuple[]) => encodeBatch(1, rows, stamp);
        const full = enc([[relays[0]!, 1, 'default', [1], null]]);
        const frames: Buffer[] = [
          Buffer.concat([Buffer.from([0xc1]), randomBytes(64)]), // 0xc1 is never valid msgpack
          full.subarray(0, full.length - 3), // a truncated batch
          Buffer.alloc(0), // an empty frame
          Buffer.from(pack({ version: 1, tuples: [] })), // a map, not a batch
          Buffer.from(pack('hello')), // a string
          Buffer.from(pack([99, 1, []])), // an unknown wire version
          Buffer.from(pack([1, 'port', 'tuples'])), // a batch header of the wrong types
          enc([[99_999, 1, 'default', [1], null]]), // a tuple for a task nobody has
          encodeBatch(1, [[relays[0]!, 1, 'default', [1], null]]), // not stamped: another topology's, fenced
          enc([tuple(['not', 'a', 'tuple'])]), // a malformed tuple
          enc([tuple([relays[0]!, 1, 'default', [1], ['x', 'y']])]), // anchors that are not 64-bit ids
          enc([tuple([relays[0]!, 1, 'nope', [1], null])]), // a stream the relay does not subscribe to
          // Wrong-shaped system tuples: values of the wrong types and counts on every acking stream, to acker and spout tasks.
          ...ackers.flatMap((a) => [
            enc([tuple([a, spouts[0]!, '__ack_ack', ['x', 'y'], null])]),
            enc([tuple([a, spouts[0]!, '__ack_init', [null, 'z', {}], null])]),
            enc([tuple([a, spouts[0]!, '__ack_init', [], null])]),
            enc([tuple([a, spouts[0]!, '__ack_fail', [[1, 2]], null])]),
          ]),
          ...spouts.flatMap((s) => [
            enc([tuple([s, ackers[0]!, '__ack_ack', ['x'], null])]),
            enc([tuple([s, ackers[0]!, '__ack_fail', [{}], null])]),
          ]),
        ];
        for (const w of detail.workers) {
          const push = new zmq.Push({ linger: 0 });
          push.connect(`tcp://127.0.0.1:${w.port}`);
          try {
            for (const f of frames) await push.send(f);
            // Sent means queued: wait until the worker counts some of it dropped (it heartbeats its droppedFrames).
            await waitFor(
              `worker ${w.supervisor}:${w.port} counting dropped frames`,
              async () => {
                const d = await cluster.describe('f-garbage');
                const now = d.workers.find((x) => x.supervisor === w.supervisor && x.port === w.port);
                return now?.metrics && (now.metrics.pid !== w.metrics!.pid || now.metrics.droppedFrames > w.metrics!.droppedFrames);
              },
              60_000,
              250,
            ).catch(() => undefined);
          } finally {
            push.close();
          }
        }
        return Date.now();
      },
      async () => {
        const end = await cluster.describe('f-garbage');
        // The invariant beside lost = 0: no worker died of what it was sent.
        const now = pidsOf(end).sort();
        return JSON.stringify(now) === JSON.stringify(workersBefore) ? [] : [`a worker died of the garbage (pids ${workersBefore.join(', ')} → ${now.join(', ')})`];
      },
    );
  });

  it(`a malformed znode under /assignments and /storms ${CORE}`, async () => {
    const bogus = ['f-bogus-1-1', 'f-bogus-2-2'];
    await runFault('a malformed znode under /assignments and /storms', 'f-znode', SHORT, async () => {
      // One undecodable, one JSON of the wrong shape, under each.
      await zk!.create(ZkPaths.assignment(bogus[0]!), Buffer.from('{not json'));
      await zk!.create(ZkPaths.assignment(bogus[1]!), Buffer.from(JSON.stringify({ topologyId: 5, workers: 'none' })));
      await zk!.create(ZkPaths.storm(bogus[0]!), Buffer.from([0xc1, 0xff, 0x00]));
      await zk!.create(ZkPaths.storm(bogus[1]!), Buffer.from(JSON.stringify({ id: 5, status: 'dancing' })));
      return Date.now();
    });
    for (const b of bogus) {
      await zk!.delete(ZkPaths.assignment(b)).catch(() => undefined);
      await zk!.delete(ZkPaths.storm(b)).catch(() => undefined);
    }
  });

  it(`kill -9 of a worker ${CORE}`, async () => {
    await runFault('kill -9 of a worker', 'f-worker', SHORT, async ({ detail }) => {
      const victim = detail.workers.find((w) => w.executors.some((e) => e.component === 'ids'))!;
      process.kill(victim.metrics!.pid, 'SIGKILL');
      return Date.now();
    });
  });

  /**
   * A windowed bolt (issue 23) holds its tuples unacked until they leave their last window: killed, it loses every
   * window in progress. Their tuples time out and are replayed, so every id still reaches the sink — emitted by a
   * window evaluated after recovery — and ids whose window had emitted before the kill arrive twice (counted).
   */
  it(`kill -9 of the worker holding a windowed bolt ${CORE}`, async () => {
    await runFault(
      'kill -9 of a worker holding a windowed bolt',
      'f-window',
      SHORT,
      async ({ detail }) => {
        const victim = detail.workers.find((w) => w.executors.some((e) => e.component === 'window'))!;
        process.kill(victim.metrics!.pid, 'SIGKILL');
        return Date.now();
      },
      async () => [],
      { 'acking.window': true },
    );
  });

  it(`kill -9 of nimbus, then a restart ${CORE}`, async () => {
    await runFault('kill -9 of nimbus, then a restart', 'f-nimbus', SHORT, async () => {
      cluster.nimbus.kill9();
      await cluster.nimbus.exited;
      await cluster.startNimbus();
      return Date.now();
    });
  });

  /**
   * A rebalance under load (issue 31): ids keep flowing while nimbus reassigns, and the workers that the new layout
   * changes restart. `-n 3` also changes the acker count (one per worker): a worker kept with the old acker list
   * hashed acks over 2 ackers while the others used 3, and acking crawled at a few ids a second.
   */
  const rebalanceFault = (what: string, name: string, args: string[], done: (d: TopologyDetail, before: TopologyDetail) => boolean) =>
    runFault(`rebalance ${what} under load`, name, SHORT, async ({ detail }) => {
      const r = await cluster.cli(['rebalance', name, ...args, '--wait', '0']);
      assert.equal(r.code, 0, r.stderr);
      await describeWhen(name, `${name} rebalanced (${what}) and running`, (d) => (d.epoch ?? 0) > (detail.epoch ?? 0) && d.status === 'active' && allRunning(d) && done(d, detail));
      return Date.now();
    });

  it('rebalance -n (2 → 3 workers, 2 → 3 ackers) under load', async () => {
    await rebalanceFault('-n 3', 'f-rebalance-n', ['-n', '3'], (d) => d.workers.length === 3);
  });

  it('rebalance -e (relay 4 → 6 executors, tasks renumbered) under load', async () => {
    const relays = (d: TopologyDetail) => d.workers.flatMap((w) => w.executors.filter((e) => e.component === 'relay').flatMap((e) => e.tasks)).length;
    await rebalanceFault('-e relay=6', 'f-rebalance-e', ['-e', 'relay=6'], (d) => relays(d) === 6);
  });

  it('SIGSTOP of a supervisor past the session timeout, then SIGCONT', async () => {
    await runFault('SIGSTOP of a supervisor past the session timeout, then SIGCONT', 'f-sigstop', LONG, async ({ detail }) => {
      const victim = detail.workers.find((w) => w.executors.some((e) => e.component === 'ids'))!.supervisor;
      const sup = cluster.supervisor(victim);
      sup.proc.signal('SIGSTOP');
      try {
        await waitFor(`${victim}'s session expired (node gone)`, async () => (await zk!.exists(ZkPaths.supervisor(victim))) === null, 60_000, 200);
        assert.equal(processState(sup.proc.pid), 'T', 'the supervisor was stopped throughout');
        await waitFor('nimbus to drop it', async () => !(await cluster.supervisorList()).some((s) => s.id === victim), 60_000, 250);
      } finally {
        sup.proc.signal('SIGCONT');
      }
      return Date.now();
    });
  });

  it('ZooKeeper stopped for 10 s, then restarted', async () => {
    await runFault('ZooKeeper stopped for 10 s, then restarted', 'f-zookeeper', LONG, async () => {
      await cluster.stopZooKeeper();
      // The outage itself, not a wait for a condition: the fault under test is "ZooKeeper
      // down for 10 s" (issue 14), so it lasts exactly that long; what must follow it
      // (acking resumes, nothing lost) is then waited on with deadlines by runFault.
      await holdFaultFor(10_000);
      await cluster.startZooKeeper();
      return Date.now();
    });
  });

  /**
   * Past nimbus.task.timeout.secs (10 s here) without ZooKeeper a worker pauses its spouts (worker/fencing/
   * zookeeper-lease.ts, issue 28): ZooKeeper stays down until acking has stalled — every spout paused, what was in
   * flight acked — and the spouts must resume once it is back. Before issue 28 acking never stalled.
   */
  it('ZooKeeper stopped past nimbus.task.timeout.secs: spouts pause, then resume', async () => {
    await runFault('ZooKeeper stopped past the task timeout (spouts pause)', 'f-zk-lease', LONG, async ({ dir }) => {
      await cluster.stopZooKeeper();
      try {
        let last = { at: Date.now(), acked: -1 };
        await waitFor('acking stalled for 2 s while ZooKeeper is down (spouts paused)', () => {
          const acked = ackedCounts(dir).reduce((a, b) => a + b, 0);
          if (acked !== last.acked) last = { at: Date.now(), acked };
          return Date.now() - last.at >= 2000;
        }, 60_000, 100);
        // Stalled with ids left to emit: paused, not merely out of ids (which is how old code would stall).
        assert.ok(last.acked < SPOUTS * LONG, `acking stalled only when every id was acked (${last.acked})`);
      } finally {
        await cluster.startZooKeeper();
      }
      return Date.now();
    });
  });

  it('kill -9 of a supervisor and its workers (restarted afterwards)', async () => {
    let victim = '';
    await runFault(
      'kill -9 of a supervisor and its workers',
      'f-supervisor',
      LONG,
      async ({ detail }) => {
        victim = detail.workers.find((w) => w.executors.some((e) => e.component === 'ids'))!.supervisor;
        const killed = await cluster.kill9Supervisor(victim);
        assert.ok(killed.length > 0, 'its workers were killed too');
        // The node does not come back until restarted below: the fault "ends" with the kill.
        return Date.now();
      },
      async () => {
        // Bring the node back so that every daemon can be checked (and the cluster is whole for what follows).
        await waitFor(`${victim}'s node gone`, async () => (await zk!.exists(ZkPaths.supervisor(victim))) === null, 60_000, 200);
        await cluster.restartSupervisor(victim);
        return [];
      },
    );
  });

  it(`leaves no worker process of the killed topologies behind ${CORE}`, async () => {
    await waitFor('no topology left', async () => (await cluster.list()).length === 0, 60_000, 500);
    await waitFor('no worker process left', () => [...cluster.supervisors.keys()].every((id) => cluster.workerPids(id).filter(isWorkerProcess).length === 0), 60_000, 250);
  });
});
