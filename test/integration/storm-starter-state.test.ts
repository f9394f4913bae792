/**
 * storm-starter's stateful windowing examples, ported as a Storm user writes
 * them (test/fixtures/storm-starter/, attribution in third_party/apache-storm-starter/),
 * on a real cluster — ZooKeeper, nimbus and a supervisor started through the
 * CLI (test/helpers/cluster-processes.ts) — with a real Redis as the state
 * provider, each worker killed with kill -9 mid-run (issue 42, items 1 and 3):
 *
 * - PersistentWindowingTopology keeps Storm's `Pair<Long, Long>` (sum, count) as its global average: after the
 *   kill, the restarted bolt's `state.get('avg')` must be a Pair again (before, `getFirst is not a function`
 *   failed every window for good), the windows go on, and every average is exact: each window's global pair is
 *   an earlier committed pair plus exactly that window's sum and count.
 * - StatefulWindowingTopology (Count(5) every Count(3), withMessageIdField) must fire, window by window, what a
 *   crash-free run fires: the same msgids and the same running sum, a window that fired after the last commit
 *   firing again (at least once) as the same window.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TopologyDetail } from '../../nimbus/views.js';
import { readAcked } from '../fixtures/replaying-ids.js';
import { readAverages, type Averages } from '../fixtures/storm-starter/persistent-windowing.js';
import { crashFreeSums, readSums } from '../fixtures/storm-starter/stateful-windowing.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, waitFor } from '../helpers/cluster-processes.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';

const STARTER = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'storm-starter');

/** The last lines of every worker log under `dir` (<topology>/worker-<port>.log), for a failed test. */
function workerLogTails(dir: string, lines: number): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.log'))
    .map((f) => `--- worker log ${f} ---\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-lines).join('\n')}`)
    .join('\n');
}

describe("storm-starter's stateful windowing topologies on a cluster with Redis, kill -9 of the worker", function () {
  this.timeout(600_000);
  let cluster: ProcessCluster;
  let redis: TestRedis;
  let dataDir: string;
  const results: string[] = [];

  before(async function () {
    this.timeout(180_000);
    redis = await startTestRedis();
    cluster = await ProcessCluster.start({ supervisors: [{ id: 'sup-a', slots: 2 }], config: { 'nimbus.scheduler': 'even' } });
    dataDir = join(cluster.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
  });

  after(async function () {
    this.timeout(120_000);
    if (results.length) process.stdout.write(`\n${results.join('\n')}\n`);
    await cluster?.stop();
    await redis?.stop();
  });

  afterEach(async function () {
    if (!cluster) return;
    if (this.currentTest?.state === 'failed') process.stderr.write(`${cluster.logs(60)}\n${workerLogTails(join(cluster.dir, 'sup-a', 'logs'), 40)}\n`);
    await cluster.killAll().catch(() => undefined);
    await waitFor('no topology left', async () => (await cluster.list()).length === 0, 60_000, 500).catch(() => undefined);
  });

  const describeWhen = (name: string, what: string, ok: (d: TopologyDetail) => boolean, timeoutMs = 120_000): Promise<TopologyDetail> =>
    waitFor(what, async () => {
      const d = await cluster.describe(name).catch(() => null);
      return d && ok(d) ? d : null;
    }, timeoutMs, 250);

  const running = (d: TopologyDetail) => d.workers.length > 0 && d.workers.every((w) => w.liveness === 'alive' && w.metrics !== null && w.metrics.epoch === d.epoch && processAlive(w.metrics.pid));
  const committed = (d: TopologyDetail, bolt: string) => d.components[bolt]?.state?.lastCommittedTxid ?? -1;

  async function submit(fixture: string, name: string, config: Record<string, unknown>): Promise<TopologyDetail> {
    await cluster.submit(join(STARTER, fixture), name, {
      'topology.state.provider.config': { url: redis.url, keyPrefix: 'starter:', commandTimeoutMs: 2000 },
      'topology.stats.report.secs': 1,
      ...config,
    });
    const d = await describeWhen(name, `${name}'s worker running`, running);
    cluster.trackPids(d.workers.map((w) => w.metrics!.pid));
    return d;
  }

  /** kill -9 of the topology's one worker; resolves with the new worker running. */
  async function killWorker(name: string, d: TopologyDetail): Promise<TopologyDetail> {
    assert.equal(d.workers.length, 1, 'one worker, as the original sets it');
    const pid = d.workers[0]!.metrics!.pid;
    process.kill(pid, 'SIGKILL');
    const after = await describeWhen(name, `${name}: a new worker in place of ${pid}`, (x) => running(x) && !x.workers.some((w) => w.metrics?.pid === pid));
    cluster.trackPids(after.workers.map((w) => w.metrics!.pid));
    return after;
  }

  it('PersistentWindowingTopology: after kill -9 the global average is a Pair again, the windows go on, every average exact', async () => {
    const name = 'persistent-windowing';
    const dir = join(dataDir, name);
    mkdirSync(dir, { recursive: true });
    const d = await submit('persistent-windowing.js', name, {
      'pwin.dir': dir,
      'pwin.messages': 1_000_000,
      'pwin.rate': 200,
      'pwin.length.ms': 4000,
      'pwin.slide.ms': 1000,
      'topology.state.checkpoint.interval.ms': 1000,
    });
    await describeWhen(name, `${name}: windows averaged and the average committed`, (x) => readAverages(dir).length >= 4 && committed(x, 'avgbolt') >= 3);
    const atKill = readAverages(dir).length;
    await killWorker(name, d);
    // Before the fix every window after the restart failed (TypeError: this.globalAvg.getFirst is not a function).
    await waitFor(`${name}: 6 windows averaged after the restart`, () => readAverages(dir).length >= atKill + 6, 180_000, 250);
    const all = readAverages(dir);
    const key = (gs: number, gc: number) => `${gs}/${gc}`;
    const seen = new Set([key(0, 0)]);
    all.forEach((a: Averages, k) => {
      assert.ok(a.windowCount > 0, `window ${k} holds tuples`);
      // What the bolt added this window to must be a pair it had before: the running one, or the last committed.
      const base = key(a.globalSum - a.windowSum, a.globalCount - a.windowCount);
      assert.ok(seen.has(base), `window ${k}: global ${key(a.globalSum, a.globalCount)} − window ${key(a.windowSum, a.windowCount)} = ${base}, which is no earlier global pair`);
      seen.add(key(a.globalSum, a.globalCount));
    });
    const first = all[atKill]!;
    assert.ok(first.globalCount - first.windowCount > 0, 'the first window after the restart added to the committed Pair, not to a fresh one');
    const last = all.at(-1)!;
    assert.equal(last.global, last.globalSum / last.globalCount);
    const detail = await cluster.describe(name);
    assert.equal(detail.components.avgbolt?.lastError ?? null, null, `no error in the bolt: ${JSON.stringify(detail.components.avgbolt?.lastError)}`);
    results.push(`  PersistentWindowingTopology, kill -9: ${all.length} windows (${all.length - atKill} after the restart), global average ${last.global.toFixed(4)} = ${last.globalSum}/${last.globalCount}`);
  });

  it('StatefulWindowingTopology: after kill -9 every window is the crash-free run\'s, window by window, with the same running sum', async () => {
    const name = 'stateful-windowing';
    const dir = join(dataDir, name);
    mkdirSync(dir, { recursive: true });
    const messages = 3000;
    // No tuple may time out at the end (the last two are held for a window that never comes): a long timeout.
    // Storm's original leaves the Redis provider commented out; with the in-memory one nothing survives a kill -9.
    const d = await submit('stateful-windowing.js', name, { 'topology.state.provider': 'redis', 'swin.dir': dir, 'swin.messages': messages, 'swin.rate': 150, 'topology.message.timeout.secs': 600, 'topology.state.checkpoint.interval.ms': 500 });
    await describeWhen(name, `${name}: windows fired and committed`, (x) => readSums(dir).length >= 60 && committed(x, 'sumbolt') >= 3);
    await killWorker(name, d);
    const want = crashFreeSums(messages);
    // Done when every id is acked but those a next window would hold (2 on the crash-free grid; up to 4 on a grid
    // shifted by the restart) and a window ending in the last slide fired, whatever the grid.
    await waitFor(`${name}: all but the last few ids acked, and a window of the last slide fired`, () => {
      const acked = readAcked(dir, 0);
      for (let n = 0; n < messages - 5; n++) if (!acked.has(n)) return false;
      return readSums(dir).some((r) => Math.max(...r.msgids) >= messages - 3);
    }, 300_000, 250);
    const got = readSums(dir);
    const text = (r: { sum: number; msgids: number[] }) => `${r.sum} [${r.msgids.join(',')}]`;
    const wanted = new Set(want.map(text));
    const wrong = got.filter((r) => !wanted.has(text(r)));
    assert.deepEqual(wrong.slice(0, 5).map(text), [], `${wrong.length} windows no crash-free run fires (msgids or running sum off)`);
    const distinct: string[] = [];
    const once = new Set<string>();
    for (const r of got) if (!once.has(text(r))) once.add(text(r)), distinct.push(text(r));
    assert.deepEqual(distinct, want.map(text), 'every crash-free window, in order');
    results.push(`  StatefulWindowingTopology, kill -9: ${want.length} windows as crash-free, ${got.length - distinct.length} fired again after the restart (fired after the last commit)`);
  });
});
