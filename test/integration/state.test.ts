/**
 * Stateful bolts on a real cluster (issue 24, item 4): ZooKeeper, nimbus and a
 * supervisor started through the CLI (test/helpers/cluster-processes.ts), a
 * real Redis (test/helpers/servers/redis.ts), and the stateful word count of
 * test/fixtures/stateful-topology.ts (a replaying spout → split → count, the
 * count a StatefulBolt on the Redis provider). After each fault the test waits
 * until every sentence is acked — a stateful bolt acks only once its updates
 * are committed — and reads the committed counts from Redis:
 *   - nothing lost: every word's count ≥ its true count;
 *   - duplicates: the updates beyond the true counts, printed (at least once:
 *     a commit followed by a crash before the acks reach the spout replays
 *     sentences whose counts were already saved);
 *   - the worker process that held the bolt alive where the fault was not its
 *     death (Redis down, a corrupt entry).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'redis';
import { RedisStateStore } from '../../common/state-store/index.js';
import { StoreKeyValueState } from '../../topology-sdk/internal/store-key-value-state.js';
import { stateNamespace } from '../../topology-sdk/internal/state-namespace.js';
import type { TopologyDetail } from '../../nimbus/views.js';
import { readAcked } from '../fixtures/acking-topology.js';
import { trueCounts } from '../fixtures/stateful-topology.js';
import { readWindows } from '../fixtures/stateful-window-topology.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, waitFor } from '../helpers/cluster-processes.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';
import { launchChromium } from '../helpers/browser.js';
import type { ComponentStateStats } from '../../nimbus/views.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'stateful-topology.js');
const WINDOWS = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'stateful-window-topology.js');
const COUNTERS = 2;
const PREFIX = 'itest:';

interface Outcome {
  lost: number;
  duplicates: number;
  words: number;
}

describe('stateful bolts on a cluster, with Redis (kill -9, kill and resubmit, Redis down, a corrupt entry)', function () {
  this.timeout(600_000);
  let cluster: ProcessCluster;
  let redis: TestRedis;
  let dataDir: string;
  const results: string[] = [];

  before(async function () {
    this.timeout(180_000);
    redis = await startTestRedis({ persistent: true });
    cluster = await ProcessCluster.start({ supervisors: [{ id: 'sup-a', slots: 3 }], config: { 'nimbus.scheduler': 'even' } });
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
    if (this.currentTest?.state === 'failed') process.stderr.write(`${cluster.logs(40)}\n`);
    await cluster.killAll().catch(() => undefined);
    await waitFor('no topology left', async () => (await cluster.list()).length === 0, 60_000, 500).catch(() => undefined);
  });

  const conf = (name: string, extra: Record<string, unknown> = {}) => ({
    'stateful.dir': join(dataDir, name),
    'stateful.counters': COUNTERS,
    'topology.state.provider': 'redis',
    'topology.state.provider.config': { url: redis.url, keyPrefix: PREFIX, commandTimeoutMs: 2000 },
    ...extra,
  });

  const describeWhen = (name: string, what: string, ok: (d: TopologyDetail) => boolean, timeoutMs = 120_000): Promise<TopologyDetail> =>
    waitFor(what, async () => {
      const d = await cluster.describe(name).catch(() => null);
      return d && ok(d) ? d : null;
    }, timeoutMs, 250);

  const running = (d: TopologyDetail) => d.workers.length > 0 && d.workers.every((w) => w.liveness === 'alive' && w.metrics !== null && w.metrics.epoch === d.epoch && processAlive(w.metrics.pid));
  const committedTxid = (d: TopologyDetail) => d.components.count?.state?.lastCommittedTxid ?? -1;
  const countWorker = (d: TopologyDetail) => d.workers.find((w) => w.executors.some((e) => e.component === 'count'))!;

  async function submit(name: string, extra: Record<string, unknown> = {}): Promise<TopologyDetail> {
    mkdirSync(join(dataDir, name), { recursive: true });
    await cluster.submit(FIXTURE, name, conf(name, extra));
    const d = await describeWhen(name, `${name}'s workers running`, running);
    cluster.trackPids(d.workers.map((w) => w.metrics!.pid));
    return d;
  }

  /** Waits until every id of the spout is acked — so its counts are committed — and for a checkpoint after that. */
  async function allAcked(name: string, messages: number, first = 0): Promise<void> {
    await waitFor(`${name}: every sentence acked`, () => {
      const acked = readAcked(join(dataDir, name), 0);
      for (let n = first; n < first + messages; n++) if (!acked.has(n)) return false;
      return true;
    }, 300_000, 250);
  }

  /** The committed counts of every count task, read from Redis as a restarted worker would. */
  async function committedCounts(name: string): Promise<Map<string, number>> {
    const store = new RedisStateStore({ provider: 'redis', url: redis.url, keyPrefix: PREFIX, connectTimeoutMs: 5000, commandTimeoutMs: 5000 });
    try {
      await store.ready(30_000);
      const out = new Map<string, number>();
      for (let i = 0; i < COUNTERS; i++) {
        const s = new StoreKeyValueState<string, number>(store, stateNamespace({ topologyName: name, componentId: 'count', taskIndex: i }), { component: 'count', task: i, onCorrupt: () => undefined });
        await s.load();
        for (const [w, n] of s) out.set(w, (out.get(w) ?? 0) + n);
      }
      return out;
    } finally {
      await store.close();
    }
  }

  function compare(label: string, got: Map<string, number>, want: Map<string, number>): Outcome {
    let lost = 0;
    let duplicates = 0;
    for (const [w, n] of want) {
      const g = got.get(w) ?? 0;
      if (g < n) lost += n - g;
      else duplicates += g - n;
    }
    for (const [w, g] of got) if (!want.has(w)) duplicates += g;
    results.push(`  ${label}: ${want.size} words, ${[...want.values()].reduce((a, b) => a + b, 0)} true updates, lost ${lost}, duplicated ${duplicates}`);
    process.stdout.write(`${results.at(-1)}\n`);
    return { lost, duplicates, words: got.size };
  }

  it('kill -9 of the worker holding the stateful bolt, twice mid-run: nothing lost, duplicates counted', async () => {
    const name = 'st-kill9';
    const messages = 3000;
    let d = await submit(name, { 'stateful.messages': messages, 'stateful.rate': 150, 'topology.stats.report.secs': 1 });
    for (const round of [1, 2]) {
      // Let some checkpoints commit, then kill the worker with a count task mid-stream.
      const before = committedTxid(await describeWhen(name, `${name}: committing (round ${round})`, (x) => committedTxid(x) >= 3 + round * 5));
      const victim = countWorker(d);
      const pid = victim.metrics!.pid;
      const spoutRecoveries = d.components.__checkpointspout!.state!.recoveries;
      // The checkpoint spout may share the victim's worker: then its new instance recovers at start (a count of its own).
      const spoutKilled = victim.executors.some((e) => e.component === '__checkpointspout');
      // The checkpoint spout's count comes from its worker's metrics record, which may be older than the count
      // task's commit (a record every topology.stats.report.secs): wait for both, not one then the other.
      const recovered = (x: TopologyDetail): boolean => {
        const recoveries = x.components.__checkpointspout?.state?.recoveries ?? 0;
        return spoutKilled ? recoveries >= 1 : recoveries > spoutRecoveries;
      };
      process.kill(pid, 'SIGKILL');
      d = await describeWhen(
        name,
        `${name}: a new worker in place of ${pid}, committing again, and the checkpoint spout through recovery (${spoutKilled ? 'restarted with the victim' : `in the other worker, from ${spoutRecoveries}`})`,
        (x) => running(x) && !x.workers.some((w) => w.metrics?.pid === pid) && committedTxid(x) > before && recovered(x),
      );
      cluster.trackPids(d.workers.map((w) => w.metrics!.pid));
    }
    await allAcked(name, messages);
    const o = compare('kill -9 twice', await committedCounts(name), trueCounts(1, 0, messages));
    assert.equal(o.lost, 0, 'counts below the truth: updates lost');
    const final = await cluster.describe(name);
    assert.equal(final.components.count!.state!.provider, 'redis');
    assert.ok((final.components.count!.state!.keys ?? 0) > 0, 'describe shows the state size');
  });

  it('hstorm kill, then submit again under the same name: it resumes from the committed state', async () => {
    const name = 'st-resubmit';
    await submit(name, { 'stateful.messages': 1000, 'stateful.rate': 400 });
    await allAcked(name, 1000);
    const first = await committedCounts(name);
    compare('first run', first, trueCounts(1, 0, 1000));
    const kill = await cluster.cli(['kill', name, '--wait', '0']);
    assert.equal(kill.code, 0, kill.stderr);
    await waitFor('the topology gone', async () => !(await cluster.list()).some((t) => t.name === name), 60_000, 250);
    // The second run emits other sentences; the counts must go on from the first run's.
    await submit(name, { 'stateful.messages': 1000, 'stateful.rate': 400, 'stateful.first': 1000 });
    await allAcked(name, 1000, 1000);
    const o = compare('kill and resubmit', await committedCounts(name), trueCounts(1, 0, 2000));
    assert.equal(o.lost, 0, 'the second run did not start from the first run\'s counts');
    await operatorViews(name);
  });

  /** What an operator sees of the state (item 6): describe's table, the Storm UI API's hstorm.state, the web UI's State table. */
  async function operatorViews(name: string): Promise<void> {
    const d = await describeWhen(name, `${name}: state reported`, (x) => committedTxid(x) >= 1 && (x.components.__checkpointspout?.state?.commits ?? 0) >= 1);
    const text = (await cluster.cli(['describe', name])).stdout;
    assert.match(text, /state \(redis; checkpoint [^)]*\):\n.*COMPONENT\s+LAST COMMITTED\s+COMMITS\s+CHECKPOINT P50\s+CHECKPOINT P99\s+KEYS\s+HELD ACKS\s+RECOVERIES\s+FAILURES\s+CORRUPT/);
    assert.match(text, /\n\s*count\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+50\s+\d+\s+\d+\s+\d+\s+0/);
    const api = (await (await fetch(`${cluster.url}/topology/${d.id}`)).json()) as { spouts: { spoutId: string; hstorm: { state: ComponentStateStats | null } }[]; bolts: { boltId: string; hstorm: { state: ComponentStateStats | null } }[] };
    const count = api.bolts.find((b) => b.boltId === 'count')!.hstorm.state!;
    assert.deepEqual([count.role, count.provider, count.keys, count.corruptEntries], ['bolt', 'redis', 50, 0]);
    assert.ok(count.lastCommittedTxid !== null && count.checkpointMs !== null, JSON.stringify(count));
    assert.equal(api.bolts.find((b) => b.boltId === 'split')!.hstorm.state, null, 'a bolt that is not stateful has none');
    assert.equal(api.spouts.find((x) => x.spoutId === '__checkpointspout')!.hstorm.state!.role, 'checkpoint');
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.goto(`http://127.0.0.1:${cluster.nimbusPort}/?refresh=1000#/topology/${encodeURIComponent(d.id)}`);
      await page.locator('[data-testid=stateful-row]').nth(1).waitFor({ timeout: 30_000 });
      assert.match(await page.locator('[data-testid=state-summary]').innerText(), /provider redis; checkpoint /);
      const rows = await page.locator('[data-testid=stateful-row]').allInnerTexts();
      assert.ok(rows.some((r) => /^__checkpointspout\s+[\d,]+\s+[\d,]+\s+[\d.,]+ \/ [\d.,]+\s+–\s+–/.test(r)), rows.join(' | '));
      assert.ok(rows.some((r) => /^count\s+[\d,]+\s+[\d,]+\s+[\d.,]+ \/ [\d.,]+\s+50\s+\d+/.test(r)), rows.join(' | '));
    } finally {
      await browser.close();
    }
  }

  it('Redis stopped for 10 s mid-run: checkpoints fail and are retried, nothing is lost, the worker does not exit', async () => {
    const name = 'st-redis-down';
    const messages = 3000;
    const d = await submit(name, { 'stateful.messages': messages, 'stateful.rate': 150 });
    const pids = d.workers.map((w) => w.metrics!.pid).sort();
    const before = committedTxid(await describeWhen(name, `${name}: committing`, (x) => committedTxid(x) >= 5));
    await redis.takeDown();
    try {
      const downAt = Date.now();
      // While it is down the checkpoint spout fails and retries, and no transaction commits: between two reports a few
      // heartbeats apart, the last committed transaction stays where it is.
      const first = await describeWhen(name, `${name}: checkpoint failures reported`, (x) => (x.components.__checkpointspout?.state?.failures ?? 0) > 0, 60_000);
      const beat = (x: TopologyDetail) => Math.min(...x.workers.map((w) => w.metrics?.heartbeatTime ?? 0));
      // `first` may hold a worker's record from before the outage (records are written on each worker's own phase):
      // compare two reports whose every record was written after it.
      const settled = await describeWhen(name, `${name}: three more heartbeats during the outage`, (x) => beat(x) >= beat(first) + 3000, 60_000);
      const later = await describeWhen(name, `${name}: three heartbeats more`, (x) => beat(x) >= beat(settled) + 3000, 60_000);
      assert.equal(committedTxid(later), committedTxid(settled), 'a transaction committed while Redis was down');
      await waitFor('10 s of outage', () => Date.now() - downAt >= 10_000, 30_000, 100);
    } finally {
      await redis.bringUp();
    }
    const after = await describeWhen(name, `${name}: committing again after Redis is back`, (x) => committedTxid(x) > before + 1, 120_000);
    assert.deepEqual(after.workers.map((w) => w.metrics!.pid).sort(), pids, 'no worker exited or was restarted');
    await allAcked(name, messages);
    const o = compare('Redis down 10 s', await committedCounts(name), trueCounts(1, 0, messages));
    assert.equal(o.lost, 0);
    const last = await cluster.describe(name);
    assert.deepEqual(last.workers.map((w) => w.metrics!.pid).sort(), pids, 'no worker exited or was restarted');
    assert.match(last.components.__checkpointspout!.lastError?.error ?? '', /HSTORM_ERR_STATESTORE_UNAVAILABLE|StateStoreError/);
  });

  it('a corrupt entry under the bolt\'s key: a clear error naming the key, the component and the task — no crash loop', async () => {
    const name = 'st-corrupt';
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      // Garbage under word w3's field of count task 0 (msgpack of "w3" is 0xa2 'w' '3'), and a field that is not msgpack.
      await raw.hSet(`${PREFIX}${stateNamespace({ topologyName: name, componentId: 'count', taskIndex: 0 })}`, [
        [Buffer.from([0xa2, 0x77, 0x33]), Buffer.from([0xc1, 0xde, 0xad])],
        [Buffer.from([0xc1]), Buffer.from([0x01])],
      ]);
    } finally {
      await raw.close();
    }
    const d = await submit(name, { 'stateful.messages': 600, 'stateful.rate': 300 });
    const pids = d.workers.map((w) => w.metrics!.pid).sort();
    const seen = await describeWhen(name, `${name}: the corrupt entries reported`, (x) => (x.components.count?.state?.corruptEntries ?? 0) >= 2 && committedTxid(x) >= 3);
    const err = seen.components.count!.lastError!.error;
    assert.match(err, /HSTORM_ERR_STATESTORE_CORRUPT|StateCorruptError/);
    assert.match(err, new RegExp(`state of "count" task \\d+: Redis hash "${PREFIX}\\{${name}:count:0\\}" field "(\\\\xa2w3|\\\\xc1)"`));
    assert.match(err, /does not decode/);
    await allAcked(name, 600);
    const now = await cluster.describe(name);
    assert.deepEqual(now.workers.map((w) => w.metrics!.pid).sort(), pids, 'the workers kept running: no crash loop');
    assert.equal(now.crashLooping, false);
    const o = compare('corrupt entry (left out)', await committedCounts(name), trueCounts(1, 0, 600));
    assert.equal(o.lost, 0);
  });

  async function submitWindows(name: string, extra: Record<string, unknown>): Promise<TopologyDetail> {
    const dir = join(dataDir, name);
    mkdirSync(dir, { recursive: true });
    await cluster.submit(WINDOWS, name, { 'swin.dir': dir, ...conf(name), ...extra });
    const d = await describeWhen(name, `${name}'s workers running`, running);
    cluster.trackPids(d.workers.map((w) => w.metrics!.pid));
    return d;
  }

  const winWorker = (d: TopologyDetail) => d.workers.find((w) => w.executors.some((e) => e.component === 'win'))!;
  const windowsCommitted = (d: TopologyDetail) => d.components.win?.state?.lastCommittedTxid ?? -1;

  it('a stateful window (withMessageIdField), kill -9 of its worker: a window that fired before the last commit does not fire again; every id is in a window or late', async () => {
    const name = 'sw-msgid';
    const messages = 1500;
    const d = await submitWindows(name, { 'swin.mode': 'msgid', 'swin.messages': messages, 'swin.rate': 50 });
    await describeWhen(name, `${name}: windows fired and committed`, (x) => (x.components.win?.window?.windows ?? 0) >= 3 && windowsCommitted(x) >= 3);
    // The end of the last window evaluated as of the last commit, read as the restarted task will read it.
    const store = new RedisStateStore({ provider: 'redis', url: redis.url, keyPrefix: PREFIX, connectTimeoutMs: 5000, commandTimeoutMs: 5000 });
    let committedEnd: number;
    try {
      await store.ready(30_000);
      const progress = new StoreKeyValueState<string, unknown>(store, stateNamespace({ topologyName: name, componentId: 'win', taskIndex: 0 }, 'window'), { component: 'win', task: 0, onCorrupt: () => undefined });
      await progress.load();
      committedEnd = progress.get('#end') as number;
    } finally {
      await store.close();
    }
    assert.ok(committedEnd >= 1000, `a window end was committed (${committedEnd})`);
    const pid = winWorker(d).metrics!.pid;
    process.kill(pid, 'SIGKILL');
    await describeWhen(name, `${name}: a new worker in place of ${pid}`, (x) => running(x) && !x.workers.some((w) => w.metrics?.pid === pid));
    await allAcked(name, messages);
    const last = (messages * 10) / 1000;
    await waitFor(`${name}: the last window recorded`, () => readWindows(join(dataDir, name)).windows.some((w) => w.end === last * 1000), 120_000, 250);
    const { windows, late } = readWindows(join(dataDir, name));
    const byEnd = new Map<number, number>();
    for (const w of windows) byEnd.set(w.end, (byEnd.get(w.end) ?? 0) + 1);
    const again = [...byEnd].filter(([end, n]) => end <= committedEnd && n > 1);
    assert.deepEqual(again, [], `windows that fired before the commit (ends ≤ ${committedEnd}) fired again`);
    const seen = new Set([...windows.flatMap((w) => w.ids), ...late]);
    const missing = Array.from({ length: messages }, (_, i) => i).filter((i) => !seen.has(i));
    assert.deepEqual(missing, [], 'ids in no window and not late: lost');
    const refired = [...byEnd].filter(([, n]) => n > 1).length;
    results.push(`  stateful window, kill -9: ${byEnd.size} windows, committed up to end ${committedEnd}; fired again after the commit: ${refired}; late after the restart: ${late.length}`);
  });

  it('a persistent window larger than withMaxEventsInMemory and than max spout pending, kill -9 mid-window: read back from Redis, nothing lost', async () => {
    const name = 'sw-persist';
    const size = 20_000;
    // The ids checked are the first two windows' worth. Replays after the kill -9 (tuples the state had committed
    // but whose acks died with the worker: at-least-once) take places in the count window, so the last ids of the
    // second window move into the next one; a third window's worth of ids behind them makes that window fire too.
    const checked = 2 * size;
    const messages = 3 * size;
    // Records every second: the second window fills in about 8 s (the spout's rate), less than the default 10 s between
    // two metrics records, and the wait below must see it part-filled.
    const d = await submitWindows(name, { 'swin.mode': 'persistent', 'swin.messages': messages, 'swin.rate': 2500, 'swin.count': size, 'swin.memory': 1000, 'topology.stats.report.secs': 1 });
    // Into the second window, with part of it committed to the store.
    await describeWhen(name, `${name}: the first window fired`, (x) => (x.components.win?.window?.windows ?? 0) >= 1 && (x.components.win?.window?.held ?? 0) >= 5000);
    const pid = winWorker(d).metrics!.pid;
    process.kill(pid, 'SIGKILL');
    await describeWhen(name, `${name}: a new worker in place of ${pid}`, (x) => running(x) && !x.workers.some((w) => w.metrics?.pid === pid));
    await allAcked(name, messages);
    const missingFrom = (windows: { ids: number[] }[]): number[] => {
      const seen = new Set(windows.flatMap((w) => w.ids));
      return Array.from({ length: checked }, (_, i) => i).filter((i) => !seen.has(i));
    };
    await waitFor(`${name}: every one of the first ${checked} ids in a window that fired`, () => missingFrom(readWindows(join(dataDir, name)).windows).length === 0, 180_000, 250).catch(() => undefined);
    const { windows } = readWindows(join(dataDir, name));
    for (const w of windows) assert.equal(w.count, size, 'every window holds its count of tuples, read back through getIter');
    assert.deepEqual(missingFrom(windows), [], 'ids in no window: lost');
    const seen = new Set(windows.flatMap((w) => w.ids));
    const dupes = windows.reduce((n, w) => n + w.ids.length, 0) - seen.size;
    results.push(`  persistent window of ${size} (${1000} in memory), kill -9 mid-window: ${windows.length} windows, ${dupes} tuples in more than one window`);
  });
});
