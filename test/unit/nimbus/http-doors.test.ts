/**
 * Nimbus's HTTP doors in one process (a Nimbus on the in-memory store, its API
 * with the UI room's routes, requests injected): what every view shows of
 * secrets, what a topology's stored config keeps of the cluster's, a config
 * nested too deep, requests from other sites and under foreign host names,
 * and the web page's framing and script policy. The same doors against real
 * processes and a real browser: test/integration/secrets-and-worker-user.test.ts
 * and web-ui-cross-site.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { InMemoryClusterStore } from '../../../common/cluster-state/in-memory-store.js';
import { buildConfig } from '../../../common/config/index.js';
import { ConfigError } from '../../../common/errors.js';
import { silentLogger } from '../../../common/logger.js';
import type { TopologyDef } from '../../../common/topology-def.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { buildHttpApi, Nimbus } from '../../../nimbus/index.js';
import { HostAllowList, splitHost } from '../../../nimbus/http-hosts.js';
import { operatorUi } from '../../../ui/index.js';

const log = silentLogger();
const NIMBUS_SECRET = 'inline-nimbus-secret-0123456789';
const ZK_PASSWORD = 'zk-password-TAILZK';
const DEF: TopologyDef = {
  components: [{ id: 'spout', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['x'], direct: false }], inputs: [], gpu: null, config: { 'spout.api.secret': 'component-secret-77' } }],
  config: {},
};
const JSON_TYPE = { 'content-type': 'application/json' };

describe("nimbus's HTTP doors", () => {
  let dir: string;
  let nimbus: Nimbus;
  let app: FastifyInstance;
  const store = new InMemoryClusterStore();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-doors-'));
    const config = buildConfig(
      [{ 'hstorm.local.dir': dir, 'nimbus.scheduler': 'even', 'nimbus.auth.secret': NIMBUS_SECRET, 'hstorm.zookeeper.auth.payload': `hstorm:${ZK_PASSWORD}`, 'nimbus.http.allowed.hosts': ['nimbus.example.org', 'proxy.example.org:8443'] }],
      { allowUserKeys: false },
    );
    nimbus = new Nimbus({ state: store.session(), config, log, advertise: { host: '127.0.0.1', port: 1 } });
    await nimbus.start();
    app = buildHttpApi({ nimbus, log, plugins: [operatorUi({ readModel: nimbus.readModel, control: nimbus, log })], allowedHosts: config['nimbus.http.allowed.hosts'] });
  });
  after(async () => {
    await app.close();
    await nimbus.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const submit = (name: string, config: Record<string, unknown>) => {
    const gz = gzipSync(Buffer.from('export default 1;\n'));
    return app.inject({
      method: 'POST',
      url: '/api/v1/topologies',
      headers: JSON_TYPE,
      payload: { name, def: DEF, config, bundle: gz.toString('base64'), sha256: createHash('sha256').update(gz).digest('hex') },
    });
  };

  it('shows no secret in any view, and stores none of the cluster\'s in a topology', async () => {
    const r = await submit('sec', { 'myapp.db.password': 'user-password-4242', 'topology.state.provider.config': { url: 'redis://u:state-pw@TAILSECRET@h:1' } });
    assert.equal(r.statusCode, 201, r.body);
    const { id } = r.json() as { id: string };
    const secrets = [NIMBUS_SECRET, ZK_PASSWORD, 'user-password-4242', 'state-pw', 'TAILSECRET', 'component-secret-77'];
    for (const url of ['/api/v1/cluster/configuration', `/api/v1/topology/${id}`, `/api/v1/topology/sec/component/spout`, '/api/v1/topologies/sec', `/api/v1/topologies/${id}`, '/api/v1/topologies', '/api/v1/topology/summary', '/metrics']) {
      const g = await app.inject({ method: 'GET', url });
      assert.equal(g.statusCode, 200, `${url}: ${g.body.slice(0, 200)}`);
      assert.deepEqual(secrets.filter((s) => g.body.includes(s)), [], url);
    }
    const shown = (await app.inject({ method: 'GET', url: '/api/v1/topologies/sec' })).json() as { config: Record<string, unknown> };
    assert.equal(shown.config['myapp.db.password'], '***');
    assert.deepEqual(shown.config['topology.state.provider.config'], { url: 'redis://u:***@h:1' });
    // What nimbus stored (and what workers read): its own secrets never merged in; the topology's own keys as given.
    const stored = JSON.parse(Buffer.from((await store.session().get(ZkPaths.storm(id))).data).toString('utf8')) as { config: Record<string, unknown> };
    assert.equal(stored.config['nimbus.auth.secret'], null);
    assert.equal(stored.config['hstorm.zookeeper.auth.payload'], null);
    assert.equal(stored.config['myapp.db.password'], 'user-password-4242');
    assert.ok(!JSON.stringify(stored).includes(NIMBUS_SECRET) && !JSON.stringify(stored).includes(ZK_PASSWORD));
  });

  it('answers a config nested 3 000 deep with a 400 naming the key, not a 500', async () => {
    for (const make of [(v: unknown) => [v], (v: unknown) => ({ a: v })]) {
      let deep: unknown = 1;
      for (let i = 0; i < 3000; i++) deep = make(deep);
      const r = await submit('deep', { 'my.deep': deep });
      assert.equal(r.statusCode, 400, r.body);
      const err = (r.json() as { error: { code: string; message: string } }).error;
      assert.equal(err.code, 'HSTORM_ERR_CONFIG_INVALID');
      assert.match(err.message, /"my\.deep".*more than 64 levels deep/);
    }
    // 64 levels still pass.
    let ok: unknown = 1;
    for (let i = 0; i < 64; i++) ok = [ok];
    assert.equal((await submit('deep-ok', { 'my.deep': ok })).statusCode, 201);
  });

  describe('state-changing requests from other sites', () => {
    const post = (headers: Record<string, string>, payload?: string) =>
      app.inject({ method: 'POST', url: '/api/v1/topology/sec/deactivate', headers, ...(payload !== undefined && { payload }) } as InjectOptions);
    const refusal = async (headers: Record<string, string>, payload?: string): Promise<[number, string]> => {
      const r = await post(headers, payload);
      return [r.statusCode, (r.json() as { error?: { code: string } }).error?.code ?? 'accepted'];
    };

    it('takes only JSON, addressed to one of its names, from its own origin', async () => {
      const media: [number, string] = [415, 'HSTORM_ERR_NIMBUS_UNSUPPORTED_MEDIA'];
      const cross: [number, string] = [403, 'HSTORM_ERR_NIMBUS_CROSS_SITE'];
      assert.deepEqual(await refusal({}), media, 'no content type (a body-less no-cors fetch)');
      assert.deepEqual(await refusal({ 'content-type': 'text/plain' }, '{}'), media);
      assert.deepEqual(await refusal({ 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'), media);
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: 'rebound.attacker.example:6627' }, '{}'), cross, 'a foreign Host (DNS rebinding)');
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: '127.0.0.1:6627', origin: 'http://attacker.example' }, '{}'), cross, 'another origin');
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: '127.0.0.1:6627', origin: 'null' }, '{}'), cross, 'an opaque origin');
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: '127.0.0.1:6627', origin: 'http://127.0.0.1:9999' }, '{}'), cross, 'same host, another port');
      const status = async () => ((await app.inject({ method: 'GET', url: '/api/v1/topology/sec' })).json() as { status: string }).status;
      assert.equal(await status(), 'ACTIVE', 'nothing refused got through');

      // Its own page, the CLI (no Origin), a named alias and a named proxy origin; an empty JSON body as Storm scripts send.
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: '127.0.0.1:6627', origin: 'http://127.0.0.1:6627' }, '{}'), [200, 'accepted']);
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: 'localhost:6627' }), [200, 'accepted'], 'empty JSON body');
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: 'NIMBUS.example.org.:80' }, '{}'), [200, 'accepted'], 'nimbus.http.allowed.hosts, any port');
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: '127.0.0.1:6627', origin: 'https://proxy.example.org:8443' }, '{}'), [200, 'accepted'], 'a listed proxy origin');
      assert.deepEqual(await refusal({ ...JSON_TYPE, host: 'proxy.example.org:9000' }, '{}'), cross, 'listed with another port');
      assert.equal(await status(), 'INACTIVE');
    });

    it('reads host names as a Host header has them', () => {
      assert.deepEqual(splitHost('[::1]:6627'), { name: '::1', port: '6627' });
      assert.deepEqual(splitHost('Example.ORG.'), { name: 'example.org', port: null });
      assert.deepEqual(splitHost('h:80'), { name: 'h', port: '80' });
      const list = new HostAllowList(['0.0.0.0', 'alias.example']);
      assert.ok(list.allows('127.0.0.1:1') && list.allows('[::1]:1') && list.allows('localhost') && list.allows('alias.example:1'));
      assert.ok(!list.allows('0.0.0.0') && !list.allows('') && !list.allows('evil.example'), 'a wildcard bind names no host');
      // The key takes names, not URLs or wildcards, and says so.
      for (const bad of ['http://nimbus.example.org', '*.example.org', 'a b', 'host:port']) {
        assert.throws(
          () => buildConfig([{ 'nimbus.http.allowed.hosts': [bad] }], { allowUserKeys: false }),
          (err: unknown) => err instanceof ConfigError && err.key === 'nimbus.http.allowed.hosts' && /a host name or address, optionally with :port/.test(err.message),
          bad,
        );
      }
      assert.deepEqual(buildConfig([{ 'nimbus.http.allowed.hosts': ['[::1]:8443', 'n-1.example.org'] }], { allowUserKeys: false })['nimbus.http.allowed.hosts'], ['[::1]:8443', 'n-1.example.org']);
    });
  });

  it('serves the web page unframeable, running only its own script', async () => {
    const r = await app.inject({ method: 'GET', url: '/' });
    assert.equal(r.headers['x-frame-options'], 'DENY');
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script, no eval');
    assert.match(csp, /connect-src 'self'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
  });
});
