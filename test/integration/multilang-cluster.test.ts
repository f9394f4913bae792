/**
 * Multilang scripts travel with the topology bundle in cluster mode: the
 * word-count fixture (Python spout and split bolt, Storm's storm.py) is
 * bundled as `hstorm submit` does, uploaded to nimbus over HTTP, downloaded by
 * a supervisor over a private ZooKeeper, and run by real worker processes
 * whose only copy of the scripts is the one unpacked from the bundle. Then
 * Storm's Flux example multilang.yaml, submitted by the real `hstorm submit`
 * with --inactive: its scripts (resources/ beside the YAML) and the Flux
 * runtime travel in the bundle too, and it runs once activated.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { NimbusClient } from '../../cli/nimbus-client.js';
import { bundleTopology, collectResources } from '../../cli/topology-bundle.js';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { buildConfig, type RawConfig } from '../../common/config/index.js';
import { silentLogger } from '../../common/logger.js';
import { Nimbus, startHttpApi } from '../../nimbus/index.js';
import { Supervisor } from '../../supervisor/index.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';
import { runHstorm } from '../helpers/hstorm-cli.js';

const log = silentLogger();
const NAME = 'multilang';
const SENTENCES = [
  'the cow jumped over the moon',
  'an apple a day keeps the doctor away',
  'four score and seven years ago',
  'snow white and the seven dwarfs',
  'i am at two with nature',
];

describe('multilang in cluster mode (scripts shipped in the bundle)', function () {
  this.timeout(120_000);
  let zk: TestZooKeeper;
  let dir: string;
  const states: ZooKeeperClusterState[] = [];
  let supervisor: Supervisor | null = null;
  let nimbus: Nimbus | null = null;
  let app: Awaited<ReturnType<typeof startHttpApi>>['app'] | null = null;

  let httpPort = 0;
  let nodeDir = '';

  before(async function () {
    this.timeout(60_000);
    zk = await startTestZooKeeper();
    dir = await mkdtemp(join(tmpdir(), 'hstorm-multilang-cluster-'));
    const root = `/t-${randomUUID().slice(0, 8)}`;
    httpPort = await freePort();
    const base: RawConfig = {
      'hstorm.zookeeper.servers': [zk.connectString],
      'hstorm.zookeeper.root': root,
      'nimbus.http.port': httpPort,
      'nimbus.scheduler': 'even',
      'supervisor.gpu.discovery': 'none',
    };
    const connect = async () => {
      const s = await connectZooKeeper({ servers: [zk.connectString], root, sessionTimeoutMs: 6000, connectTimeoutMs: 30_000 }, log);
      states.push(s);
      return s;
    };
    nimbus = new Nimbus({ state: await connect(), config: buildConfig([{ ...base, 'hstorm.local.dir': join(dir, 'nimbus') }], { allowUserKeys: false }), log, advertise: { host: '127.0.0.1', port: httpPort } });
    ({ app } = await startHttpApi({ nimbus, log, host: '127.0.0.1', port: httpPort }));
    await nimbus.start();
    nodeDir = join(dir, 'node-a');
    const config = buildConfig([{ ...base, 'hstorm.local.dir': nodeDir, 'supervisor.id': 'node-a', 'supervisor.slots.ports': [await freePort(), await freePort()] }], { allowUserKeys: false });
    supervisor = new Supervisor({ state: await connect(), config, log, workerStopGraceMs: 10_000 });
    await supervisor.start();
  });
  after(async function () {
    this.timeout(60_000);
    await supervisor?.stop().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await nimbus?.stop().catch(() => undefined);
    for (const s of states) await s.close().catch(() => undefined);
    await zk?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the Python spout and bolt from the unpacked bundle and counts exactly', async () => {
    const n = 60;
    const out = join(dir, 'counts.jsonl');
    const topologyConfig: RawConfig = { 'ml.lang': 'python', 'ml.sentences': n, 'ml.output': out, 'ml.fault.dir': dir };
    const modulePath = resolveModulePath(join(PACKAGE_ROOT, 'test/fixtures/multilang'), PACKAGE_ROOT);
    // The scripts, storm.py (a link to third_party/ in the source tree) included, are packed as files.
    const packed = Object.keys(collectResources(modulePath));
    for (const f of ['storm.py', 'splitsentence.py', 'sentencespout.py', 'faults.py']) assert.ok(packed.includes(f), `${f} is packed (packed: ${packed.join(', ')})`);
    const { def } = await loadConfiguredTopology(modulePath, topologyConfig);
    const bundle = await bundleTopology(modulePath);
    const client = new NimbusClient('127.0.0.1', httpPort);
    const submitted = await client.submit({ name: NAME, def, config: topologyConfig, bundle: bundle.gz.toString('base64'), sha256: bundle.sha256 });

    await waitFor(`all ${n} sentences acked`, async () => ((await client.describe(NAME)).components.sentences?.acked ?? 0) >= n, 90_000, 500);
    // The scripts ran from the unpacked bundle: regular files beside topology.mjs, execute bits as in the source.
    // Checked while the topology runs: once it is killed the supervisor deletes its code.
    const unpacked = join(nodeDir, 'stormdist', submitted.id, 'resources');
    const script = join(unpacked, 'splitsentence.py');
    assert.ok(existsSync(script), `${script} unpacked from the bundle`);
    assert.ok(lstatSync(join(unpacked, 'storm.py')).isFile(), 'storm.py travels as a file, not a link');
    assert.equal(readFileSync(script, 'utf8'), readFileSync(join(PACKAGE_ROOT, 'test/fixtures/multilang/resources/splitsentence.py'), 'utf8'));
    assert.equal(statSync(script).mode & 0o777, statSync(join(PACKAGE_ROOT, 'test/fixtures/multilang/resources/splitsentence.py')).mode & 0o777);

    const failed = (await client.describe(NAME)).components.sentences?.failed ?? -1;
    await client.kill(NAME, 0);
    await waitFor('workers stopped and counts written', () => supervisor!.workers().length === 0 && existsSync(out) && readFileSync(out, 'utf8').trim().split('\n').length === 2, 60_000);

    const expected = new Map<string, number>();
    for (let sid = 0; sid < n; sid++) for (const w of SENTENCES[sid % SENTENCES.length]!.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
    const counts = new Map<string, number>();
    for (const line of readFileSync(out, 'utf8').trim().split('\n')) {
      for (const [w, c] of Object.entries((JSON.parse(line) as { counts: Record<string, number> }).counts)) counts.set(w, c);
    }
    const sorted = (m: Map<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));
    assert.deepEqual(sorted(counts), sorted(expected));
    assert.equal(failed, 0);
  });

  it("runs Storm's multilang.yaml submitted by `hstorm submit --inactive`: the scripts and the Flux runtime travel in the bundle, spouts start once activated", async () => {
    const yaml = join(PACKAGE_ROOT, 'third_party/apache-storm-flux/multilang.yaml');
    const submitted = await runHstorm(['submit', yaml, '--inactive', '--json', '-c', 'nimbus.host=127.0.0.1', '-c', `nimbus.http.port=${httpPort}`]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const { id, name } = JSON.parse(submitted.stdout) as { id: string; name: string };
    assert.equal(name, 'shell-topology', "the Flux file's name");
    const client = new NimbusClient('127.0.0.1', httpPort);
    assert.equal((await client.describe(name)).status, 'inactive');
    // The workers start from the bundle while the topology is inactive; the scripts are unpacked beside it.
    await waitFor('Storm\'s scripts unpacked from the bundle', () => existsSync(join(nodeDir, 'stormdist', id, 'resources', 'randomsentence.js')), 60_000);
    await client.activate(name);
    await waitFor('10 sentences acked', async () => ((await client.describe(name)).components['sentence-spout']?.acked ?? 0) >= 10, 90_000, 500);
    const detail = await client.describe(name);
    assert.equal(detail.components['sentence-spout']?.failed ?? -1, 0);
    assert.ok((detail.components.count?.executed ?? 0) > 0 && (detail.components.log?.executed ?? 0) > 0, 'the built-in TestWordCounter and LogInfoBolt ran');
    await client.kill(name, 0);
    await waitFor('workers stopped', () => supervisor!.workers().length === 0, 60_000);
  });
});
