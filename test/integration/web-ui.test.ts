/**
 * What an operator looks at, on a live cluster of separate processes
 * (dev-zookeeper, nimbus, two supervisors — one with a declared GPU — and
 * their workers): Storm's UI REST API with Storm's field names and windows,
 * Prometheus `/metrics` parsed by a text-format parser, user metrics and task
 * errors carried by heartbeats, the node collectors' figures, and the web UI
 * driven in Debian's chromium — the topology listed, a worker on a GPU slot
 * with the scheduler's reason, the γ chart with points, deactivate from the
 * page. Screenshots of each page go to bench-results/ui/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import type { Page } from 'playwright-core';
import type { DeclaredGpu } from '../../common/config/schema.js';
import type { ComponentWindowStats } from '../../nimbus/views.js';
import { launchChromium, type TestBrowser } from '../helpers/browser.js';
import { PACKAGE_ROOT, ProcessCluster, processAlive, waitFor } from '../helpers/cluster-processes.js';

const UI_TOPOLOGY = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'ui-topology.js');
const SHOTS = join(PACKAGE_ROOT, 'bench-results', 'ui');
/** A Storm UI action as a script sends it: JSON content type (nimbus refuses any other), no body. */
const STORM_POST = { method: 'POST', headers: { 'content-type': 'application/json' } };
const GTX1060: DeclaredGpu = { id: 'gtx1060', name: 'GeForce GTX 1060', smCount: 10, coresPerSm: 128, clockMHz: 1708, memoryMB: 6144, computeCapability: '6.1', slots: 2 };

type Json = Record<string, unknown>;

describe('operator views: Storm UI REST API, /metrics and the web UI (real processes, real browser)', function () {
  this.timeout(240_000);
  let cluster: ProcessCluster;
  let base: string;
  let id = '';
  let ui: TestBrowser | null = null;

  const get = async <T = Json>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`);
    const body = (await res.json()) as T;
    assert.equal(res.status, 200, `GET ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  before(async function () {
    this.timeout(180_000);
    cluster = await ProcessCluster.start({
      supervisors: [
        { id: 'sup-gpu', slots: 2, gpus: [GTX1060] },
        { id: 'sup-cpu', slots: 2 },
      ],
      config: { 'nimbus.scheduler': 'hetero', 'nimbus.monitor.freq.secs': 0.5, 'supervisor.collector.period.secs': 1 },
    });
    base = `http://127.0.0.1:${cluster.nimbusPort}`;
    id = (await cluster.submit(UI_TOPOLOGY, 'ui', {})).id;
    // Running: both workers alive, γ sampled a few times, user metrics and the fixture's error reported.
    await waitFor(
      'the ui topology running with γ, user metrics and an error',
      async () => {
        const t = await get<TopologyPage>(`/api/v1/topology/${id}`);
        const sink = t.bolts.find((b) => b.boltId === 'sink');
        return (
          t.workers.length === 2 &&
          t.workers.every((w) => w.hstorm.liveness === 'alive') &&
          t.hstorm.splitSeries.length >= 4 &&
          (sink?.hstorm.userMetrics?.counters.ids ?? 0) > 20 &&
          t.hstorm.errors.length > 0
        );
      },
      120_000,
      500,
    );
    const d = await cluster.describe('ui');
    cluster.trackPids(d.workers.flatMap((w) => (w.metrics ? [w.metrics.pid] : [])));
  });

  after(async function () {
    this.timeout(90_000);
    await ui?.close();
    await cluster?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs()}\n`);
  });

  it('serves the cluster, nimbus, supervisor and topology summaries with Storm\'s field names', async () => {
    const c = await get('/api/v1/cluster/summary');
    for (const k of ['stormVersion', 'supervisors', 'topologies', 'slotsTotal', 'slotsUsed', 'slotsFree', 'executorsTotal', 'tasksTotal', 'schedulerDisplayResource', 'totalMem', 'totalCpu', 'availMem', 'availCpu']) {
      assert.ok(k in c, `cluster/summary has ${k}`);
    }
    assert.equal(c.supervisors, 2);
    assert.equal(c.topologies, 1);
    assert.equal(c.slotsTotal, 4);
    assert.equal(c.slotsUsed, 2);
    assert.equal(c.slotsFree, 2);
    const hc = c.hstorm as Json;
    assert.equal(hc.gpuSlotsTotal, 2);
    assert.equal(hc.gpuSlotsUsed, 1);
    assert.deepEqual(hc.gpuModels, [{ name: 'GeForce GTX 1060', count: 1, declared: 1 }]);

    const n = await get<{ nimbuses: Json[] }>('/api/v1/nimbus/summary');
    assert.equal(n.nimbuses.length, 1);
    assert.equal(n.nimbuses[0]!.status, 'Leader');
    assert.equal(n.nimbuses[0]!.port, cluster.nimbusPort);

    // The node collectors' rounds arrive with the supervisors' heartbeats.
    const s = await waitFor('node collector rounds from both supervisors', async () => {
      const r = await get<{ supervisors: Supervisor[] }>('/api/v1/supervisor/summary');
      return r.supervisors.every((x) => x.hstorm.node?.cpu.utilisation != null && x.hstorm.node.workers.length > 0) ? r : null;
    }, 30_000, 500);
    for (const sup of s.supervisors) {
      for (const k of ['id', 'host', 'uptime', 'uptimeSeconds', 'slotsTotal', 'slotsUsed', 'totalMem', 'totalCpu', 'usedMem', 'usedCpu']) assert.ok(k in sup, `supervisor has ${k}`);
      const node = sup.hstorm.node!;
      assert.ok(node.memory.totalMB > 0 && node.memory.usedMB > 0);
      assert.ok(node.workers.every((w) => w.rssMB !== null && w.rssMB > 10 && processAlive(w.pid)), JSON.stringify(node.workers));
    }
    const gpuSup = s.supervisors.find((x) => x.id === 'sup-gpu')!;
    assert.equal(gpuSup.hstorm.gpus[0]!.usedSlots, 1);
    assert.equal(gpuSup.hstorm.gpus[0]!.freeSlots, 1);
    assert.equal(gpuSup.hstorm.node!.gpus[0]!.why, 'declared in config: no device to ask');

    const t = await get<{ topologies: Json[] }>('/api/v1/topology/summary');
    assert.equal(t.topologies.length, 1);
    const row = t.topologies[0]!;
    assert.equal(row.name, 'ui');
    assert.equal(row.status, 'ACTIVE');
    assert.equal(row.workersTotal, 2);
    assert.equal(row.executorsTotal, 7, '5 components + 2 ackers');
    assert.match(String(row.uptime), /^\d+(m )?\d*s$|^\d+m \d+s$/);

    const conf = await get('/api/v1/cluster/configuration');
    assert.equal(conf['nimbus.scheduler'], 'hetero');
  });

  it('serves a topology over Storm\'s windows, its components, metrics, and the hstorm extras', async () => {
    const t = await get<TopologyPage>(`/api/v1/topology/${id}?window=600`);
    assert.equal(t.window, '600');
    assert.equal(t.windowHint, '10m 0s');
    assert.deepEqual(t.topologyStats.map((w) => w.window), ['600', '10800', '86400', ':all-time']);
    assert.deepEqual(t.topologyStats.map((w) => w.windowPretty), ['10m 0s', '3h 0m 0s', '1d 0h 0m 0s', 'All time']);
    const [ten, , , all] = t.topologyStats;
    // The workers started after nimbus: everything they counted falls in the 10-minute window too.
    assert.ok(ten!.acked > 10 && ten!.acked <= all!.acked, `acked 10m ${ten!.acked}, all ${all!.acked}`);
    assert.ok(Number(ten!.completeLatency) > 0);
    assert.deepEqual(t.spouts.map((s) => s.spoutId), ['source']);
    assert.deepEqual(t.bolts.map((b) => b.boltId).sort(), ['cpu', 'gpu', 'sink', 'window']);
    const win = t.bolts.find((b) => b.boltId === 'window')!.hstorm.window;
    assert.ok(win, 'the windowed bolt reports its windows');
    assert.equal(win.spec, 'tumbling 500 ms');
    assert.ok(win.windows > 0 && win.maxWindowTuples > 0 && win.meanWindowTuples !== null, JSON.stringify(win));
    assert.deepEqual([win.eventTime, win.lateDropped, win.lateRouted, win.watermarkLagMs], [false, 0, 0, null]);
    assert.equal(t.bolts.find((b) => b.boltId === 'sink')!.hstorm.window, null, 'a plain bolt has none');
    const described = await cluster.cli(['describe', 'ui']);
    assert.match(described.stdout, /windowed bolts .*\n.*BOLT\s+WINDOW\s+WINDOWS.*\n\s*window\s+tumbling 500 ms\s+\d+/);
    const source = t.spouts[0]!;
    assert.ok(source.emitted > 0 && source.acked > 0);
    assert.equal(typeof source.completeLatency, 'string');
    assert.ok(source.hstorm.split && typeof source.hstorm.split.gamma === 'number');
    assert.ok((source.hstorm.userMetrics?.gauges.pending?.max ?? -1) >= 0, 'the spout gauge');
    const cpu = t.bolts.find((b) => b.boltId === 'cpu')!;
    assert.match(cpu.lastError, /reported as an error on purpose/);
    assert.equal(cpu.errorHost, '127.0.0.1');
    assert.equal(typeof cpu.errorPort, 'number');
    assert.ok(Number(cpu.executeLatency) >= 15, `cpu execute latency ${cpu.executeLatency}`);
    assert.equal(cpu.hstorm.userMetrics?.histograms['wait-ms']?.max, 20);
    const sink = t.bolts.find((b) => b.boltId === 'sink')!;
    assert.ok((sink.hstorm.userMetrics?.meters.arrivals?.count ?? 0) > 0);
    assert.equal(t.bolts.find((b) => b.boltId === 'gpu')!.hstorm.gpuComponent, true);

    const gpuWorker = t.workers.find((w) => w.hstorm.slot === 'gpu');
    assert.ok(gpuWorker, 'a worker on a GPU slot');
    assert.equal(gpuWorker.supervisorId, 'sup-gpu');
    assert.equal(gpuWorker.hstorm.gpu?.gpuId, 'gtx1060');
    assert.equal(gpuWorker.hstorm.gpu?.declared, true);
    assert.match(gpuWorker.hstorm.reason, /Algorithm 3/);
    assert.deepEqual(gpuWorker.componentNumTasks, { gpu: 1 });
    assert.ok(t.hstorm.splitSeries.every((p) => p.component === 'source' && p.gamma >= 0 && p.gamma <= 1));

    const comp = await get<Json & { executorStats: Json[]; componentErrors: Json[]; boltStats: Json[] }>(`/api/v1/topology/${id}/component/cpu?window=10800`);
    assert.equal(comp.componentType, 'bolt');
    assert.equal(comp.window, '10800');
    assert.equal(comp.executors, 1);
    assert.equal(comp.boltStats.length, 4);
    assert.equal(comp.executorStats.length, 1);
    assert.match(String(comp.executorStats[0]!.id), /^\[\d+-\d+\]$/);
    assert.match(String(comp.componentErrors[0]!.error), /on purpose/);

    const m = await get<{ spouts: Json[]; bolts: Json[]; hstorm: Json }>(`/api/v1/topology/${id}/metrics`);
    assert.equal((m as Json).window, ':all-time');
    assert.deepEqual(m.spouts.map((s) => s.id), ['source']);
    // The split spout declares two streams: hstorm counts per component, so the entry is ":all".
    assert.equal((m.spouts[0]!.emitted as Json[])[0]!.stream_id, ':all');
    const cpuM = m.bolts.find((b) => b.id === 'cpu')!;
    assert.deepEqual(cpuM.emitted, [{ stream_id: 'default', value: (cpuM.emitted as Json[])[0]!.value }]);
    assert.deepEqual((cpuM.executed as Json[])[0]!.component_id, 'source');
    assert.deepEqual((cpuM.executed as Json[])[0]!.stream_id, 'cpu');
    assert.deepEqual(m.bolts.find((b) => b.id === 'sink')!.emitted, [], 'the sink declares no stream');

    // Bad input: a clear 4xx, and nimbus keeps serving.
    const bad = await fetch(`${base}/api/v1/topology/${id}?window=7`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /window must be one of 600, 10800, 86400, :all-time/);
    assert.equal((await fetch(`${base}/api/v1/topology/${id}/component/nope`)).status, 404);
    assert.equal((await fetch(`${base}/api/v1/topology/nope`)).status, 404);
    const rb = await fetch(`${base}/api/v1/topology/${id}/rebalance/x`, STORM_POST);
    assert.equal(rb.status, 400);
  });

  it('exposes cluster, supervisor, topology and component series on /metrics in the Prometheus text format', async () => {
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    // The parser throws on any line that is not the text format.
    const families = parsePrometheusTextFormat(text);
    const fam = (name: string): PromFamily => {
      const f = families.find((x) => x.name === name);
      assert.ok(f, `/metrics has ${name}`);
      return f;
    };
    const one = (name: string, labels: Record<string, string>) => {
      const s = fam(name).metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
      assert.ok(s, `${name}${JSON.stringify(labels)}`);
      return s;
    };
    assert.equal(Number(one('hstorm_cluster_supervisors', {}).value), 2);
    assert.equal(Number(one('hstorm_cluster_gpu_slots_used', {}).value), 1);
    assert.equal(Number(one('hstorm_supervisor_slots', { supervisor: 'sup-gpu' }).value), 2);
    assert.equal(Number(one('hstorm_gpu_slots_used', { supervisor: 'sup-gpu', gpu: 'gtx1060', model: 'GeForce GTX 1060' }).value), 1);
    assert.ok(Number(one('hstorm_node_memory_used_bytes', { supervisor: 'sup-cpu' }).value) > 0);
    assert.ok(fam('hstorm_worker_rss_bytes').metrics.length >= 2);
    // Nimbus's own memory beside RSS and heap used: reserved heap and memory outside it (nimbus/memory-watch.ts).
    assert.ok(Number(one('hstorm_nimbus_heap_total_bytes', {}).value) >= Number(one('hstorm_nimbus_heap_used_bytes', {}).value));
    assert.ok(Number(one('hstorm_nimbus_external_bytes', {}).value) > 0);
    assert.equal(fam('hstorm_component_emitted_total').type, 'COUNTER');
    const tl = { topology: 'ui', topology_id: id };
    assert.ok(Number(one('hstorm_component_emitted_total', { ...tl, component: 'source', kind: 'spout' }).value) > 0);
    assert.ok(Number(one('hstorm_component_acked_total', { ...tl, component: 'source' }).value) > 0);
    assert.ok(Number(one('hstorm_component_executed_total', { ...tl, component: 'cpu' }).value) > 0);
    one('hstorm_component_capacity', { ...tl, component: 'cpu' });
    const hist = fam('hstorm_component_complete_latency_seconds');
    assert.equal(hist.type, 'HISTOGRAM');
    // parse-prometheus-text-format folds a labelled histogram into its buckets (labels, _sum and _count
    // are lost), and this cluster has one spout, so its buckets are the source's; _count from the text.
    assert.equal(hist.metrics.length, 1);
    const buckets = hist.metrics[0]!.buckets!;
    const les = ['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf'];
    assert.deepEqual(Object.keys(buckets).sort(), [...les].sort());
    for (let i = 1; i < les.length; i++) assert.ok(Number(buckets[les[i]!]) >= Number(buckets[les[i - 1]!]), 'cumulative buckets');
    const count = new RegExp(`^hstorm_component_complete_latency_seconds_count\\{topology="ui",topology_id="${id}",component="source",kind="spout"\\} (\\d+)$`, 'm').exec(text);
    assert.ok(count, 'a _count line for the source spout');
    assert.equal(Number(buckets['+Inf']), Number(count[1]));
    assert.ok(Number(buckets['0.5']) > 0, 'latencies of a few ms are under 0.5 s');
    const gamma = Number(one('hstorm_split_gamma', { ...tl, component: 'source' }).value);
    assert.ok(gamma >= 0 && gamma <= 1);
    assert.ok(Number(one('hstorm_user_counter', { ...tl, component: 'sink', name: 'ids' }).value) > 0);
    one('hstorm_user_meter_rate_1m', { ...tl, component: 'sink', name: 'arrivals' });
    one('hstorm_user_histogram', { ...tl, component: 'cpu', name: 'wait-ms', stat: 'p99' });
    one('hstorm_topology_status', { ...tl, status: 'active' });
  });

  it('drives the web UI in chromium: cluster page, topology page with the GPU worker and the γ chart, deactivate', async () => {
    mkdirSync(SHOTS, { recursive: true });
    ui = await launchChromium();
    const page = await ui.context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    page.on('requestfailed', (r) => failures.push(`${r.url()}: ${r.failure()?.errorText ?? ''}`));
    // The page's CSP (ui/web-ui.ts) allows no eval and no inline script: anything it blocks is a failure of the page.
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) failures.push(`CSP: ${m.text()}`);
    });

    await page.goto(`${base}/?refresh=1000#/`);
    await page.locator('[data-testid=topology-row][data-topology=ui]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid=supervisor-row]').nth(1).waitFor();
    assert.match(await page.locator('[data-supervisor=sup-gpu]').innerText(), /GeForce GTX 1060/);
    await page.screenshot({ path: join(SHOTS, 'cluster.png'), fullPage: true });

    await page.locator('[data-testid=topology-row][data-topology=ui] a').click();
    const gpuRow = page.locator('[data-testid=worker-row][data-slot=gpu]');
    await gpuRow.waitFor({ timeout: 30_000 });
    assert.match(await gpuRow.locator('[data-testid=worker-gpu]').innerText(), /GeForce GTX 1060/);
    assert.match(await gpuRow.locator('[data-testid=worker-reason]').innerText(), /Algorithm 3/);
    assert.equal(await page.locator('[data-testid=topology-status]').innerText(), 'ACTIVE');
    await chartPoints(page, 4);
    assert.ok((await page.locator('[data-testid=error-row]').count()) > 0, 'the fixture\'s error is listed');
    assert.match(await page.locator('[data-testid=user-metrics]').allInnerTexts().then((t) => t.join('\n')), /ids: \d+/);
    assert.match(await page.locator('[data-testid=windowed-bolt-row]').innerText(), /^window\s+tumbling 500 ms\s+[\d,]+\s+0\s+[\d.,]+ \/ [\d,]+\s+\d+\s+–\s+–\s+–$/);
    // Live refresh, not a reload: the chart gains points while the page stays.
    const before = Number(await page.locator('[data-testid=split-chart]').getAttribute('data-points'));
    await waitFor('more γ points on the page', async () => Number(await page.locator('[data-testid=split-chart]').getAttribute('data-points')) > before, 60_000, 300);
    await page.screenshot({ path: join(SHOTS, 'topology.png'), fullPage: true });

    await page.locator('a', { hasText: 'sink' }).first().click();
    await page.getByRole('heading', { name: 'Executors', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'component.png'), fullPage: true });
    await page.goBack();

    await page.locator('[data-testid=deactivate]').click();
    await page.locator('[data-testid=topology-status]', { hasText: 'INACTIVE' }).waitFor({ timeout: 60_000 });
    const t = await get<TopologyPage>(`/api/v1/topology/${id}`);
    assert.equal(t.status, 'INACTIVE');
    await page.screenshot({ path: join(SHOTS, 'topology-deactivated.png'), fullPage: true });
    assert.deepEqual(failures, [], 'no script error and no failed request (everything is served locally)');

    // Storm's POST actions answer as Storm's do (sent as a Storm script sends them: JSON, no body).
    const r = (await (await fetch(`${base}/api/v1/topology/${id}/activate`, STORM_POST)).json()) as Json;
    assert.deepEqual({ ...r, hstorm: undefined }, { topologyOperation: 'activate', topologyId: id, status: 'success', hstorm: undefined });
    const k = (await (await fetch(`${base}/api/v1/topology/${id}/kill/0`, STORM_POST)).json()) as Json;
    assert.equal(k.topologyOperation, 'kill');
    await waitFor('the topology gone', async () => (await get<{ topologies: Json[] }>('/api/v1/topology/summary')).topologies.length === 0, 30_000, 300);
  });
});

/** Waits until the γ chart has drawn at least `n` points (Vega's SVG symbols). */
async function chartPoints(page: Page, n: number): Promise<number> {
  const symbols = page.locator('#split-chart svg g.mark-symbol path');
  await waitFor(`${n} points on the γ chart`, async () => (await symbols.count()) >= n, 30_000, 300);
  return symbols.count();
}

interface Supervisor {
  id: string;
  hstorm: {
    gpus: { usedSlots: number; freeSlots: number }[];
    node: { cpu: { utilisation: number | null }; memory: { totalMB: number; usedMB: number }; workers: { pid: number; rssMB: number | null }[]; gpus: { why: string | null }[] } | null;
  };
}

interface ComponentExtras {
  split: { gamma?: unknown } | null;
  window: ComponentWindowStats | null;
  gpuComponent: boolean;
  userMetrics: {
    counters: Record<string, number>;
    gauges: Record<string, { max: number | null }>;
    histograms: Record<string, { max: number }>;
    meters: Record<string, { count: number }>;
  } | null;
}

interface TopologyPage {
  status: string;
  window: string;
  windowHint: string;
  topologyStats: { window: string; windowPretty: string; acked: number; completeLatency: string | null }[];
  spouts: { spoutId: string; emitted: number; acked: number; completeLatency: string | null; hstorm: ComponentExtras }[];
  bolts: { boltId: string; executeLatency: string | null; lastError: string; errorHost: string; errorPort: number | null; hstorm: ComponentExtras }[];
  workers: { supervisorId: string; componentNumTasks: Record<string, number>; hstorm: { slot: string; liveness: string; reason: string; gpu: { gpuId: string; declared: boolean } | null } }[];
  hstorm: { splitSeries: { component: string; gamma: number }[]; errors: unknown[] };
}
