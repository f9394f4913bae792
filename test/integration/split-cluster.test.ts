/**
 * The adaptive CPU/GPU split end to end in cluster mode (DESIGN §8): nimbus
 * and two supervisors in this process over a private ZooKeeper, the topology
 * submitted as a bundle over HTTP, real worker processes (one per supervisor,
 * a spout task in each), and γ signalled through real ZooKeeper watches.
 * Checks that γ converges to 0.8 ± 0.05, that both spout tasks apply every γ
 * within a second, that nothing is lost, that nimbus serves γ, δ and the
 * latencies as a time series, and that `describe` (HTTP, --json and human)
 * shows the split.
 */
import { waitFor } from '../helpers/wait-for.js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDetail } from '../../cli/describe-format.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { NimbusClient } from '../../cli/nimbus-client.js';
import { bundleTopology } from '../../cli/topology-bundle.js';
import { readJson } from '../../common/cluster-state/json-node.js';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { buildConfig, type RawConfig } from '../../common/config/index.js';
import { silentLogger } from '../../common/logger.js';
import { workerHeartbeatSchema } from '../../common/record-schemas.js';
import type { SplitMetrics } from '../../common/storm-base.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { Nimbus, startHttpApi, type SplitPoint, type TopologyDetail } from '../../nimbus/index.js';
import { Supervisor } from '../../supervisor/index.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';
import { freePort } from '../helpers/ports.js';
import { SETTLE_WINDOWS, assertConverged, assertEveryTaskApplied, assertNothingLost, readReports } from '../helpers/split-checks.js';
import { startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';

const log = silentLogger();
const NAME = 'hybrid';
/** Time-series points (one per metrics record, a second apart here, per spout task) the spouts stay active for at least. */
const MIN_POINTS = 18;
/** γ publications the spouts stay active for at least: enough to settle and then some to judge (assertConverged). */
const MIN_PUBLISHED = SETTLE_WINDOWS + 5;


describe('adaptive split in cluster mode (ZooKeeper, real workers)', function () {
  this.timeout(240_000);
  let zk: TestZooKeeper;
  let dir: string;
  const states: ZooKeeperClusterState[] = [];
  const supervisors: Supervisor[] = [];
  let nimbus: Nimbus | null = null;
  let app: Awaited<ReturnType<typeof startHttpApi>>['app'] | null = null;

  before(async () => {
    zk = await startTestZooKeeper();
    dir = await mkdtemp(join(tmpdir(), 'hstorm-split-cluster-'));
  });
  after(async function () {
    this.timeout(60_000);
    for (const s of supervisors) await s.stop().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await nimbus?.stop().catch(() => undefined);
    for (const s of states) await s.close().catch(() => undefined);
    await zk?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('converges γ over ZooKeeper signals, loses nothing, and serves the split as a time series', async () => {
    const root = `/t-${randomUUID().slice(0, 8)}`;
    const httpPort = await freePort();
    const base: RawConfig = {
      'hstorm.zookeeper.servers': [zk.connectString],
      'hstorm.zookeeper.root': root,
      'nimbus.http.port': httpPort,
      'nimbus.scheduler': 'even',
      'supervisor.gpu.discovery': 'none',
      // Nimbus samples the split history on its monitor tick: twice per worker heartbeat, so it misses none.
      'nimbus.monitor.freq.secs': 0.5,
    };
    const connect = async () => {
      const s = await connectZooKeeper({ servers: [zk.connectString], root, sessionTimeoutMs: 6000, connectTimeoutMs: 30_000 }, log);
      states.push(s);
      return s;
    };
    nimbus = new Nimbus({
      state: await connect(),
      config: buildConfig([{ ...base, 'hstorm.local.dir': join(dir, 'nimbus') }], { allowUserKeys: false }),
      log,
      advertise: { host: '127.0.0.1', port: httpPort },
    });
    ({ app } = await startHttpApi({ nimbus, log, host: '127.0.0.1', port: httpPort }));
    await nimbus.start();
    // Two nodes with one slot each: the two workers, and so the two spout tasks, live on different supervisors.
    for (const id of ['node-a', 'node-b']) {
      const config = buildConfig([{ ...base, 'hstorm.local.dir': join(dir, id), 'supervisor.id': id, 'supervisor.slots.ports': [await freePort()] }], {
        allowUserKeys: false,
      });
      const sup = new Supervisor({ state: await connect(), config, log, workerStopGraceMs: 10_000 });
      supervisors.push(sup);
      await sup.start();
    }

    // What `hstorm submit` does: build the topology here, bundle it, upload it.
    const out = join(dir, 'reports.jsonl');
    // The series has one point per worker metrics record (docs/operator-views.md): one a second here, not the
    // cluster's default of one per 10 s, so that it holds enough points to judge within the deadline below.
    const topologyConfig: RawConfig = { 'hybrid.output': out, 'topology.stats.report.secs': 1 };
    const modulePath = resolveModulePath(join(PACKAGE_ROOT, 'test/fixtures/hybrid-split-topology'), PACKAGE_ROOT);
    const { def } = await loadConfiguredTopology(modulePath, topologyConfig);
    const bundle = await bundleTopology(modulePath);
    const client = new NimbusClient('127.0.0.1', httpPort);
    const submitted = await client.submit({ name: NAME, def, config: topologyConfig, bundle: bundle.gz.toString('base64'), sha256: bundle.sha256 });
    const t0 = Date.now();

    // Running once both workers beat with split metrics.
    const reader = await connect();
    await waitFor('both spout tasks reporting split metrics', async () => (await spoutSplits(reader, submitted.id)).length === 2, 60_000);
    // Active until there is enough to judge — γ published MIN_PUBLISHED times and MIN_POINTS heartbeats in nimbus's
    // series — rather than for a fixed 10 s, which a loaded machine can fill with too few windows or heartbeats.
    await waitFor(
      `${MIN_PUBLISHED} γ publications and ${MIN_POINTS} time-series points`,
      async () => {
        const controller = (await spoutSplits(reader, submitted.id)).find((x) => x.controller);
        if (!controller || controller.applied.length < MIN_PUBLISHED) return false;
        return (await client.timeseries(NAME)).points.length >= MIN_POINTS;
      },
      120_000,
      500,
    );
    const activeUntil = Date.now();
    const live = await client.describe(NAME);
    await client.deactivate(NAME);
    await waitDrained(client);

    // γ converged and every task followed, read from the workers' own heartbeats in ZooKeeper.
    const splits = await spoutSplits(reader, submitted.id);
    assert.equal(splits.length, 2);
    const converged = assertConverged(splits, activeUntil);
    const applied = assertEveryTaskApplied(splits);

    // describe: the controller's split per split spout, in JSON and in the human table.
    const split = live.components.source?.split as Partial<SplitMetrics> | null | undefined;
    assert.ok(split, 'describe shows the split of the spout');
    assert.equal(split.controller, true, 'describe shows the controller task, which owns δ and the latencies');
    assert.ok(Math.abs(split.gamma! - 0.8) <= 0.05, `describe γ ${split.gamma}`);
    assert.ok(typeof split.delta === 'number' && typeof split.latCpuMs === 'number' && typeof split.latGpuMs === 'number');
    // δ is the window's lat_cpu / (lat_cpu + lat_gpu) (one window: noisy, so no band here; γ above is the smoothed one).
    assert.ok(Math.abs(split.delta - split.latCpuMs / (split.latCpuMs + split.latGpuMs)) < 1e-3, `δ ${split.delta} from ${split.latCpuMs} / ${split.latGpuMs}`);
    assert.equal(live.components.cpu?.split, null);
    const human = formatDetail(live);
    assert.match(human, /adaptive split/);
    assert.match(human, new RegExp(`source\\s+${split.gamma!.toFixed(3)}\\s+${(split.delta as number).toFixed(3)}`));
    const json = JSON.parse(JSON.stringify(live)) as TopologyDetail;
    assert.equal((json.components.source?.split as { gamma?: number } | null)?.gamma, split.gamma);

    // The time series: γ, δ, latencies per spout task over the run, in time order, bounded.
    const series = await client.timeseries(NAME);
    assert.equal(series.id, submitted.id);
    const points = series.points;
    assertSeries(points, activeUntil);
    const since = points[Math.floor(points.length / 2)]!.time;
    const later = await client.timeseries(NAME, since);
    assert.ok(later.points.length > 0 && later.points.every((p) => p.time > since), '?since= keeps only later points');
    const raw = await fetch(`${client.baseUrl}/topologies/${NAME}/timeseries?since=yesterday`);
    assert.equal(raw.status, 400);
    assert.equal(((await raw.json()) as { error: { code: string } }).error.code, 'HSTORM_ERR_NIMBUS_BAD_REQUEST');
    assert.equal((await fetch(`${client.baseUrl}/topologies/nope/timeseries`)).status, 404);

    // Kill: the workers stop gracefully, spouts and sink report, and nothing was lost.
    await client.kill(NAME, 0);
    // Each task writes its report as it closes: a CI run under load read the file before one spout task had written its own.
    await waitFor(
      'workers stopped and every task\'s report written',
      () => {
        const { spouts, sinks } = readReports(out);
        return supervisors.every((s) => s.workers().length === 0) && sinks.length === 1 && spouts.length === 2;
      },
      60_000,
    );
    const { emitted } = assertNothingLost(out, 2);
    console.log(
      `      γ ${converged.gamma.toFixed(3)} after ${converged.windows} windows (${converged.published} published), ` +
        `γ applied ≤ ${applied.maxDelayMs} ms after publication, ${points.length} time-series points, ${emitted} ids, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  });
});

/** The SplitMetrics of every spout task, from the latest worker heartbeats in the store. */
async function spoutSplits(state: ZooKeeperClusterState, topologyId: string): Promise<SplitMetrics[]> {
  const dir = ZkPaths.workerbeatsOf(topologyId);
  const out: SplitMetrics[] = [];
  for (const name of await state.children(dir).catch(() => [] as string[])) {
    const beat = await readJson(state, `${dir}/${name}`, workerHeartbeatSchema).catch(() => null);
    for (const e of beat?.value.executors ?? []) if (e.component === 'source' && e.split) out.push(e.split as unknown as SplitMetrics);
  }
  return out;
}

/**
 * Waits until the deactivated spouts have emitted their last tuple and every tree of theirs is done.
 * One look is not enough: the paced spouts often have nothing in flight while still active, so a heartbeat
 * written before the worker applied the deactivation can already read acked = emitted (a soak run under load
 * then killed the topology with its last tuple in flight). Two looks, the second with a newer heartbeat
 * from every worker and the same emitted count, show the spouts stopped (an active spout emits every
 * 100 ms, a heartbeat comes every second) and drained.
 */
async function waitDrained(client: NimbusClient): Promise<void> {
  let first: { emitted: number; beats: Map<string, number> } | null = null;
  await waitFor(
    'in-flight tuples drained, and no spout emitting between two heartbeats of every worker',
    async () => {
      const d = await client.describe(NAME);
      const s = d.components.source;
      const beats = new Map(d.workers.map((w) => [`${w.host}:${w.port}`, w.metrics?.heartbeatTime ?? 0]));
      if (s === undefined || s.emitted === 0 || s.acked + s.failed < s.emitted) {
        first = null;
        return false;
      }
      const seen = first;
      if (seen !== null && seen.emitted === s.emitted && [...beats].every(([w, t]) => t > (seen.beats.get(w) ?? Infinity))) return true;
      if (seen === null || seen.emitted !== s.emitted) first = { emitted: s.emitted, beats };
      return false;
    },
    60_000,
    500,
  );
}

function assertSeries(points: readonly SplitPoint[], activeUntil: number): void {
  const tasks = new Set(points.map((p) => p.task));
  assert.equal(tasks.size, 2, `points from both spout tasks (tasks ${[...tasks].join(', ')})`);
  assert.ok(points.every((p) => p.component === 'source'));
  assert.ok(points.length >= MIN_POINTS, `${points.length} points; the spouts stayed active until there were ${MIN_POINTS}`);
  assert.ok(points.length <= 600);
  for (let i = 1; i < points.length; i++) assert.ok(points[i]!.time >= points[i - 1]!.time, 'points in time order');
  for (const t of tasks) {
    const own = points.filter((p) => p.task === t);
    assert.equal(new Set(own.map((p) => p.time)).size, own.length, `task ${t}: one point per heartbeat`);
  }
  // The series shows the convergence: near γ0 = 0.5 at first (nimbus misses no beat, and the
  // first beat comes before γ could have moved by more than three windows), in the band at the end.
  const trace = points.map((p) => p.gamma.toFixed(2)).join(' ');
  assert.ok(points[0]!.gamma < 0.75, `first point γ ${points[0]!.gamma}: ${trace}`);
  for (const t of tasks) {
    // The last beat while the spouts were active (the windows of the drain hold only the stragglers).
    const last = points.filter((p) => p.task === t && p.time <= activeUntil).at(-1)!;
    assert.ok(Math.abs(last.gamma - 0.8) <= 0.05, `last γ of task ${t} while active: ${trace}`);
    assert.ok(last.delta !== null && last.latCpuMs !== null && last.latGpuMs !== null, `task ${t}: δ and latencies present`);
  }
  // Latencies in the series: the "CPU" side about 4× slower (the median, since one window holds few tuples).
  const withLatencies = points.filter((p) => p.latCpuMs !== null && p.latGpuMs);
  assert.ok(withLatencies.length >= points.length / 2, `${withLatencies.length} of ${points.length} points carry latencies`);
  // Measured once γ is in the band, where the fixture keeps both sides equally busy: before, at γ ≈ 0.5, the "CPU"
  // side gets more than its share, and on a busy machine (late timers) its queue adds to its latency (a CI run beside
  // three builds measured 5.46 over the whole series with γ converged, and another 5.53 once in the band: a loaded
  // 2-core machine adds its own queueing to both sides, so the band is wide — it says the "CPU" side is the slow one
  // by about the fixture's factor; γ in the band above is what shows the split converged).
  const ratios = withLatencies.filter((p) => Math.abs(p.gamma - 0.8) <= 0.05).map((p) => p.latCpuMs! / p.latGpuMs!).sort((a, b) => a - b);
  assert.ok(ratios.length > 0, `no point with latencies once γ was in the band: ${trace}`);
  const median = ratios[Math.floor(ratios.length / 2)]!;
  assert.ok(median > 2.5 && median < 8, `median lat_cpu / lat_gpu once converged ${median.toFixed(2)}`);
}
