/**
 * The web UI against a nimbus with a shared secret (nimbus.auth.secret), in
 * chromium: its POST actions are refused without the secret, the page asks
 * for it on the 401, sends it and the action goes through; with
 * nimbus.auth.reads the page asks before it can show anything. Nimbus runs
 * in-process over a private ZooKeeper; a supervisor is simulated by its znode
 * (no worker runs: the page only needs the topology).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { encodeJson } from '../../common/cluster-state/json-node.js';
import { buildConfig } from '../../common/config/index.js';
import { silentLogger } from '../../common/logger.js';
import { bearerHeader } from '../../common/security/bearer-token.js';
import type { TopologyDef } from '../../common/topology-def.js';
import { ZkPaths } from '../../common/zk-paths.js';
import { Nimbus, startHttpApi } from '../../nimbus/index.js';
import { operatorUi } from '../../ui/index.js';
import { launchChromium, type TestBrowser } from '../helpers/browser.js';
import { startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';

const log = silentLogger();
const SECRET = 'web-ui-test-secret-0123456789';
const DEF: TopologyDef = {
  components: [{ id: 'spout', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['x'], direct: false }], inputs: [], gpu: null, config: {} }],
  config: {},
};

describe('web UI with nimbus.auth.secret (chromium)', function () {
  this.timeout(90_000);
  let zk: TestZooKeeper;
  let ui: TestBrowser | null = null;
  let dataDir: string;
  const closers: (() => Promise<unknown>)[] = [];

  before(async () => {
    zk = await startTestZooKeeper();
    ui = await launchChromium();
  });
  after(async () => {
    await ui?.close();
    await zk?.stop();
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Nimbus with the secret, one simulated supervisor and topology `ui` submitted with the secret; returns the base URL and its id. */
  const start = async (reads: boolean): Promise<{ base: string; id: string }> => {
    dataDir = await mkdtemp(join(tmpdir(), 'hstorm-ui-auth-'));
    const root = `/ui-${randomUUID().slice(0, 8)}`;
    const zkOpts = { servers: [zk.connectString], root, sessionTimeoutMs: 4000, connectTimeoutMs: 30_000 };
    const state: ZooKeeperClusterState = await connectZooKeeper(zkOpts, log);
    closers.push(() => state.close());
    const config = buildConfig([{ 'hstorm.local.dir': dataDir, 'nimbus.scheduler': 'even', 'hstorm.zookeeper.root': root }], { allowUserKeys: false });
    const nimbus = new Nimbus({ state, config, log, advertise: { host: '127.0.0.1', port: 1 } });
    await nimbus.start();
    closers.push(() => nimbus.stop());
    const plugins = [operatorUi({ readModel: nimbus.readModel, control: nimbus, log })];
    const { app, port } = await startHttpApi({ nimbus, log, host: '127.0.0.1', port: 0, auth: { secret: SECRET, reads }, plugins });
    closers.push(() => app.close());
    const sup = await connectZooKeeper(zkOpts, log);
    closers.push(() => sup.close());
    const info = { id: 'sup-a', host: '127.0.0.1', ports: [7001], memoryMB: 1024, cpus: 2, gpus: [], startedAt: Date.now(), heartbeatAt: Date.now(), version: 1 };
    await sup.create(ZkPaths.supervisor('sup-a'), encodeJson(info), { mode: 'ephemeral', parents: true });
    const gz = gzipSync(Buffer.from('export default 1;\n'));
    const base = `http://127.0.0.1:${port}`;
    const res = await fetch(`${base}/api/v1/topologies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearerHeader(SECRET) },
      body: JSON.stringify({ name: 'ui', def: DEF, config: {}, bundle: gz.toString('base64'), sha256: createHash('sha256').update(gz).digest('hex') }),
    });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    const { id } = JSON.parse(text) as { id: string };
    return { base, id };
  };

  const status = async (base: string, id: string): Promise<string> =>
    ((await (await fetch(`${base}/api/v1/topology/${id}`, { headers: bearerHeader(SECRET) })).json()) as { status: string }).status;

  it('asks for the secret when an action is refused, then deactivates', async () => {
    const { base, id } = await start(false);
    const page = await ui!.context.newPage();
    closers.push(() => page.close());
    const prompts: string[] = [];
    let answer = 'not-the-secret-at-all';
    page.on('dialog', (d) => {
      prompts.push(d.message());
      void d.accept(answer);
    });
    await page.goto(`${base}/#/topology/${encodeURIComponent(id)}`);
    await page.locator('[data-testid=topology-status]', { hasText: 'ACTIVE' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(prompts, [], 'reads are open: no prompt to show the page');

    // A wrong secret: asked, refused, nothing changed.
    await page.locator('[data-testid=deactivate]').click();
    await page.waitForFunction(() => sessionStorage.getItem('hstorm.nimbus.secret') !== null, undefined, { timeout: 20_000 });
    assert.equal(prompts.length, 1);
    assert.match(prompts[0]!, /nimbus\.auth\.secret/);
    assert.equal(await status(base, id), 'ACTIVE');

    // The right one: asked again (the stored one was refused), then it goes through.
    answer = SECRET;
    await page.locator('[data-testid=deactivate]').click();
    await page.locator('[data-testid=topology-status]', { hasText: 'INACTIVE' }).waitFor({ timeout: 20_000 });
    assert.equal(prompts.length, 2);
    assert.match(prompts[1]!, /refused/);
    assert.equal(await status(base, id), 'INACTIVE');

    // Kept for the tab: the next action needs no prompt.
    await page.locator('[data-testid=activate]').click();
    await page.locator('[data-testid=topology-status]', { hasText: /^ACTIVE$/ }).waitFor({ timeout: 20_000 });
    assert.equal(prompts.length, 2);
  });

  it('with nimbus.auth.reads, shows nothing until given the secret', async () => {
    const { base } = await start(true);
    const anonymous = await fetch(`${base}/api/v1/cluster/summary`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: { code: string } }).error.code, 'HSTORM_ERR_NIMBUS_UNAUTHENTICATED');
    assert.equal((await fetch(`${base}/`)).status, 200, 'the page itself is public');

    const page = await ui!.context.newPage();
    closers.push(() => page.close());
    let prompts = 0;
    page.on('dialog', (d) => {
      prompts++;
      void d.accept(SECRET);
    });
    await page.goto(`${base}/#/`);
    await page.locator('[data-testid=topology-row][data-topology=ui]').waitFor({ timeout: 30_000 });
    assert.ok(prompts >= 1);
  });
});
