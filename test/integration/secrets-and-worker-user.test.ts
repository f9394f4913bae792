/**
 * Secrets stay where they belong, and workers run as another user for good —
 * against a real ZooKeeper, nimbus and supervisor started through the CLI,
 * with nimbus's secret and the ZooKeeper credentials inline in their
 * hstorm.yaml (docs/security.md):
 *
 *  - no unauthenticated GET of any view (Storm's UI API, hstorm's API, the
 *    web page, /metrics) nor `hstorm describe` shows a secret: not the
 *    cluster's, not a password the topology's own config holds, not the
 *    password of the state provider's URL (one with an `@` in it);
 *  - the topology's code, in a running worker, finds none of the cluster's
 *    secrets in its conf or its environment, and does find its own keys;
 *  - as root, with supervisor.worker.user = nobody and a start timeout
 *    shortened to 15 s, the workers run as nobody for twice that past their
 *    first acks without one restart: the same pids, no death in the
 *    supervisor's report, no "hung worker" in its log, each spout opened once;
 *    and a shell (Python) topology runs as nobody too, its scripts written out
 *    beside its code. (Not root: the supervisor refuses the key at start.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import type { OpenProbe } from '../fixtures/conf-probe-topology.js';
import { PACKAGE_ROOT, ProcessCluster, waitFor } from '../helpers/cluster-processes.js';
import { sleep } from '../helpers/wait-for.js';

const PROBE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'conf-probe-topology.js');
const MULTILANG = join(PACKAGE_ROOT, 'test', 'fixtures', 'multilang');
const NIMBUS_SECRET = 'inline-nimbus-secret-0123456789abcdef';
const ZK_PASSWORD = 'zk-inline-password-TAILZK';
const ZK_AUTH = `hstorm:${ZK_PASSWORD}`;
// A password holding "@": a redaction that stops at the first "@" would leave TAILSECRET.
const STATE_PASSWORD = 'state-pw@TAILSECRET';
const STATE_URL = `redis://probe:${STATE_PASSWORD}@127.0.0.1:1/0`;
const USER_PASSWORD = 'user-db-password-4242';
const START_TIMEOUT_SECS = 15;
const AS_ROOT = process.getuid?.() === 0;

/** The pieces no answer may hold. */
const SECRETS = [NIMBUS_SECRET, ZK_PASSWORD, 'state-pw', 'TAILSECRET', USER_PASSWORD];
const leaked = (text: string): string[] => SECRETS.filter((s) => text.includes(s));

describe('secrets never served or handed on; workers as another user never restarted (real nimbus and supervisor)', function () {
  this.timeout(240_000);
  let cluster: ProcessCluster;
  let probeDir: string;
  let id: string;
  const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());

  before(async function () {
    this.timeout(180_000);
    cluster = await ProcessCluster.start({
      supervisors: [{ id: 'sup-s', slots: 4 }],
      config: {
        'nimbus.auth.secret': NIMBUS_SECRET,
        'hstorm.zookeeper.auth.payload': ZK_AUTH,
        'supervisor.worker.start.timeout.secs': START_TIMEOUT_SECS,
        ...(AS_ROOT && { 'supervisor.worker.user': 'nobody' }),
      },
    });
    writeFileSync(cluster.clientConfig, toYaml({ 'nimbus.host': '127.0.0.1', 'nimbus.http.port': cluster.nimbusPort, 'nimbus.auth.secret': NIMBUS_SECRET }));
    probeDir = join(cluster.dir, 'probe');
    mkdirSync(probeDir);
    // The workers write their probe files here: theirs, as nobody's heartbeat directory is.
    if (AS_ROOT) chownSync(probeDir, nobody, -1);
    ({ id } = await cluster.submit(PROBE, 'probe', {
      'probe.dir': probeDir,
      'probe.rate': 20,
      'myapp.db.password': USER_PASSWORD,
      'topology.state.provider.config': { url: STATE_URL },
    }));
  });

  after(async function () {
    this.timeout(90_000);
    await cluster?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs(40)}\n`);
  });

  /** Both workers up and the spout's tuples acked. */
  const running = () =>
    waitFor(
      'both workers acking',
      async () => {
        const d = await cluster.describe('probe');
        return d.workers.length === 2 && d.workers.every((w) => w.metrics) && (d.components['ticks']?.acked ?? 0) > 0 ? d : null;
      },
      120_000,
      250,
    );

  const opens = (): OpenProbe[] => readdirSync(probeDir).filter((f) => f.startsWith('open-')).map((f) => JSON.parse(readFileSync(join(probeDir, f), 'utf8')) as OpenProbe);

  it('serves no secret through any unauthenticated GET, nor through describe', async () => {
    await running();
    const base = `http://127.0.0.1:${cluster.nimbusPort}`;
    const paths = [
      '/api/v1/cluster/configuration',
      '/api/v1/cluster/summary',
      '/api/v1/nimbus/summary',
      '/api/v1/supervisor/summary',
      '/api/v1/topology/summary',
      `/api/v1/topology/${id}`,
      '/api/v1/topology/probe',
      `/api/v1/topology/${id}/metrics`,
      `/api/v1/topology/${id}/component/ticks`,
      '/api/v1/topologies',
      `/api/v1/topologies/${id}`,
      '/api/v1/topologies/probe',
      '/api/v1/topologies/probe/timeseries',
      '/api/v1/supervisors',
      '/api/v1/scheduler/queue',
      '/api/v1/nimbus/health',
      '/metrics',
      '/',
      '/ui/app.js',
    ];
    for (const p of paths) {
      const res = await fetch(`${base}${p}`);
      assert.equal(res.status, 200, p);
      assert.deepEqual(leaked(await res.text()), [], `GET ${p}`);
    }
    for (const args of [['describe', 'probe'], ['describe', 'probe', '--json'], ['list', '--json']]) {
      const r = await cluster.cli(args);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(leaked(r.stdout + r.stderr), [], `hstorm ${args.join(' ')}`);
    }

    // Redacted, not dropped: an operator still sees that each is set, and everything else as it is.
    const cluster_ = (await (await fetch(`${base}/api/v1/cluster/configuration`)).json()) as Record<string, unknown>;
    assert.equal(cluster_['nimbus.auth.secret'], '***');
    assert.equal(cluster_['hstorm.zookeeper.auth.payload'], '***');
    assert.equal(cluster_['nimbus.http.port'], cluster.nimbusPort);
    const page = (await (await fetch(`${base}/api/v1/topology/${id}`)).json()) as { configuration: Record<string, unknown> };
    assert.equal(page.configuration['myapp.db.password'], '***');
    assert.deepEqual(page.configuration['topology.state.provider.config'], { url: 'redis://probe:***@127.0.0.1:1/0' });
    assert.equal(page.configuration['probe.rate'], 20);
    // Nimbus no longer merges its own secrets into a topology's config: not even redacted, they are not there.
    assert.equal(page.configuration['nimbus.auth.secret'], null);
    assert.equal(page.configuration['hstorm.zookeeper.auth.payload'], null);
  });

  it("hands the topology's code none of the cluster's secrets, in its conf or its environment", async () => {
    await running();
    const probes = await waitFor('the spout to write what it was given', () => (opens().length > 0 ? opens() : null), 60_000, 250);
    for (const p of probes) {
      const conf = JSON.stringify(p.conf);
      assert.ok(!conf.includes(NIMBUS_SECRET) && !conf.includes(ZK_PASSWORD), `the conf holds a cluster secret: ${conf.slice(0, 400)}`);
      assert.equal(p.conf['nimbus.auth.secret'], null);
      assert.equal(p.conf['hstorm.zookeeper.auth.payload'], null);
      // Its own keys it does get: they are its config.
      assert.equal(p.conf['myapp.db.password'], USER_PASSWORD);
      assert.deepEqual(p.conf['topology.state.provider.config'], { url: STATE_URL });
      const env = JSON.stringify(p.env);
      assert.ok(!env.includes(NIMBUS_SECRET) && !env.includes(ZK_PASSWORD), 'the environment holds a cluster secret');
      assert.equal(p.env['HSTORM_WORKER_LAUNCH'], undefined, 'the launch (ZooKeeper credentials, CURVE keys) left the environment before topology code loaded');
      if (AS_ROOT) assert.equal(p.uid, nobody, 'the worker runs as supervisor.worker.user');
    }
  });

  it(`runs as supervisor.worker.user past ${START_TIMEOUT_SECS} s (the start timeout) twice over without one restart (root), or refuses the key (not root)`, async () => {
    if (!AS_ROOT) {
      const r = await cluster.cli(['supervisor', '-c', 'supervisor.worker.user=nobody', '-c', 'hstorm.zookeeper.servers=["127.0.0.1:1"]']);
      assert.notEqual(r.code, 0);
      assert.match(r.stdout + r.stderr, /supervisor\.worker\.user.*needs a supervisor running as root/);
      return;
    }
    const first = await running();
    const pids = first.workers.map((w) => w.metrics!.pid).sort();
    cluster.trackPids(pids);
    const ackedBefore = first.components['ticks']!.acked;
    // A duration, not a wait: what is under test is that nothing happens in it. Checked as it goes, to fail at the first restart.
    const until = Date.now() + 2 * START_TIMEOUT_SECS * 1000;
    let last = first;
    while (Date.now() < until) {
      await sleep(500);
      last = await cluster.describe('probe');
      assert.deepEqual(last.workers.map((w) => w.metrics?.pid).sort(), pids, 'a worker was replaced');
      assert.deepEqual(last.workers.map((w) => w.exits), [null, null], "a death or restart in the supervisor's report");
    }
    assert.ok(last.components['ticks']!.acked > ackedBefore, 'the spout went on being acked');
    assert.doesNotMatch(cluster.supervisor('sup-s').proc.log(), /restarting a hung worker|worker died/);
    assert.equal(opens().length, 1, 'the spout task opened once');
    for (const pid of pids) assert.equal(uidOf(pid), nobody, `worker ${pid} runs as nobody`);
  });

  it('runs a shell topology as supervisor.worker.user: its scripts written out beside its code, every sentence acked (root)', async () => {
    if (!AS_ROOT) return; // the refusal is shown above
    const sentences = 30;
    const { id: ml } = await cluster.submit(MULTILANG, 'ml', { 'ml.lang': 'python', 'ml.sentences': sentences, 'ml.output': join(probeDir, 'ml.jsonl'), 'ml.fault.dir': probeDir });
    const d = await waitFor('every sentence acked', async () => {
      const x = await cluster.describe('ml');
      return (x.components['sentences']?.acked ?? 0) >= sentences ? x : null;
    }, 120_000, 500);
    cluster.trackPids(d.workers.flatMap((w) => (w.metrics ? [w.metrics.pid] : [])));
    for (const w of d.workers) assert.equal(uidOf(w.metrics!.pid), nobody);
    const resources = join(cluster.supervisor('sup-s').localDir, 'stormdist', ml, 'resources');
    assert.equal(statSync(join(resources, 'splitsentence.py')).uid, nobody, 'the worker wrote its scripts out');
    assert.equal(statSync(join(cluster.supervisor('sup-s').localDir, 'stormdist', ml, 'topology.mjs')).uid, 0, 'its code stays root\'s');
    assert.equal(d.components['sentences']?.failed, 0);
  });
});

function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}
