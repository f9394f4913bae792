/**
 * The pure parts of hstorm's doors (docs/security.md): which binds warn at
 * start, the bearer check, which routes need the secret, secrets from files,
 * and what a worker is (not) handed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../../common/config/index.js';
import { ConfigError } from '../../../common/errors.js';
import { bearerHeader, bearerMatches } from '../../../common/security/bearer-token.js';
import { configWarnings, exposureWarnings, isLoopback } from '../../../common/security/exposure.js';
import { nimbusSecret, zookeeperAuthPayload } from '../../../common/security/secrets.js';
import { digestId } from '../../../common/cluster-state/zookeeper-acl.js';
import { needsSecret } from '../../../nimbus/http-auth.js';
import { workerClusterConfig } from '../../../supervisor/link-keys.js';

const SECRET = 'a-secret-of-32-characters-length';

describe('security', () => {
  describe('exposure warnings', () => {
    it('tells loopback from the network', () => {
      for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.ok(isLoopback(h), h);
      for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.1', 'node1.example.com', '::ffff:10.0.0.1']) assert.ok(!isLoopback(h), h);
    });

    it('warns for a door open to the network with its protection off, and only then', () => {
      const door = (host: string, on: boolean) => ({ what: 'nimbus HTTP API', host, protections: [{ name: 'nimbus.auth.secret', on }] });
      const [line] = exposureWarnings([door('0.0.0.0', false)]);
      assert.match(line ?? '', /SECURITY: nimbus HTTP API listens on 0\.0\.0\.0.*nimbus\.auth\.secret off/);
      assert.deepEqual(exposureWarnings([door('127.0.0.1', false), door('0.0.0.0', true)]), []);
    });
  });

  it('warns when the nimbus secret is on and ZooKeeper is open (supervisors read where nimbus is from ZooKeeper)', () => {
    const cfg = (extra: Record<string, unknown>) => buildConfig([extra], { allowUserKeys: false });
    assert.match(configWarnings(cfg({ 'nimbus.auth.secret': SECRET })).join(''), /hstorm\.zookeeper\.auth\.payload is not/);
    assert.deepEqual(configWarnings(cfg({ 'nimbus.auth.secret': SECRET, 'hstorm.zookeeper.auth.payload': 'u:p' })), []);
    assert.deepEqual(configWarnings(cfg({})), []);
  });

  describe('bearer secret', () => {
    it('accepts the secret and nothing else', () => {
      assert.ok(bearerMatches(bearerHeader(SECRET).authorization, SECRET));
      assert.ok(bearerMatches(`bearer   ${SECRET}`, SECRET));
      for (const h of [undefined, '', 'Bearer', `Bearer ${SECRET}x`, `Bearer ${SECRET.slice(1)}`, `Basic ${SECRET}`, SECRET, 'Bearer ']) {
        assert.ok(!bearerMatches(h, SECRET), String(h));
      }
    });

    it('locks every write, the bundle and the keys (by route pattern); reads only when asked', () => {
      for (const [m, u] of [
        ['POST', '/api/v1/topologies'],
        ['POST', '/api/v1/topologies/wc/kill'],
        ['POST', '/api/v1/topology/wc-1/rebalance/0'],
        ['POST', '/api/v1/supervisors/:id/worker-beats'],
        ['DELETE', '/api/v1/topologies/wc'],
        ['PUT', '/anything'],
        ['GET', '/api/v1/topologies/:id/bundle'],
        ['GET', '/api/v1/topologies/:id/curve-keys'],
        ['HEAD', '/api/v1/topologies/:id/bundle'],
      ]) {
        assert.ok(needsSecret(m!, u!, false), `${m} ${u}`);
      }
      for (const u of ['/api/v1/topologies', '/api/v1/topologies/:name', '/api/v1/cluster/summary', '/metrics', '/', '/assets/app.js']) {
        assert.ok(!needsSecret('GET', u, false), u);
      }
      assert.ok(needsSecret('GET', '/api/v1/topologies', true));
      assert.ok(needsSecret('GET', '/metrics', true));
      assert.ok(!needsSecret('GET', '/', true), 'the page itself stays public');
      assert.ok(!needsSecret('GET', '/assets/app.js', true));
    });
  });

  describe('secrets from config', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hstorm-secrets-'));

    it('reads the file, which wins over the inline value, trimmed', () => {
      const file = join(dir, 'nimbus.secret');
      writeFileSync(file, `  ${SECRET}\n`);
      const config = buildConfig([{ 'nimbus.auth.secret': 'inline-secret-value-16', 'nimbus.auth.secret.file': file }], { allowUserKeys: false });
      assert.equal(nimbusSecret(config), SECRET);
      assert.equal(nimbusSecret(buildConfig([{ 'nimbus.auth.secret': SECRET }], { allowUserKeys: false })), SECRET);
      assert.equal(nimbusSecret(buildConfig([], { allowUserKeys: false })), null);
    });

    it('names the key when the file is missing, empty, too short or malformed', () => {
      const empty = join(dir, 'empty');
      writeFileSync(empty, '\n');
      const short = join(dir, 'short');
      writeFileSync(short, 'tiny');
      const noColon = join(dir, 'nocolon');
      writeFileSync(noColon, 'justapassword');
      const cases: [() => unknown, string][] = [
        [() => nimbusSecret({ 'nimbus.auth.secret.file': join(dir, 'missing') }), 'nimbus.auth.secret.file'],
        [() => nimbusSecret({ 'nimbus.auth.secret.file': empty }), 'nimbus.auth.secret.file'],
        [() => nimbusSecret({ 'nimbus.auth.secret.file': short }), 'nimbus.auth.secret.file'],
        [() => zookeeperAuthPayload({ 'hstorm.zookeeper.auth.payload.file': noColon }), 'hstorm.zookeeper.auth.payload.file'],
      ];
      for (const [fn, key] of cases) {
        assert.throws(fn, (err: unknown) => err instanceof ConfigError && err.key === key && err.message.includes(key));
      }
    });

    it('validates inline values with the key named', () => {
      assert.throws(() => buildConfig([{ 'nimbus.auth.secret': 'short' }], { allowUserKeys: false }), /nimbus\.auth\.secret/);
      assert.throws(() => buildConfig([{ 'hstorm.zookeeper.auth.payload': 'no-colon' }], { allowUserKeys: false }), /hstorm\.zookeeper\.auth\.payload.*user:password/);
    });
  });

  it("builds ZooKeeper's digest identity user:base64(sha1(user:password))", () => {
    // ZooKeeper's DigestAuthenticationProvider.generateDigest("hstorm:pw"), computed independently:
    // printf 'hstorm:pw' | openssl sha1 -binary | base64
    assert.equal(digestId('hstorm:pw'), 'hstorm:NpC/vYDP2/BaMnOw8FfLyBpS0ks=');
    // The password may hold colons: the user is what comes before the first.
    assert.equal(digestId('u:a:b'), 'u:Ka3Bfj2GPj7fp0ffwAw1Arlu9+Q=');
  });

  it('hands workers the cluster config without the nimbus secret', () => {
    const config = buildConfig([{ 'nimbus.auth.secret': SECRET, 'hstorm.zookeeper.auth.payload': 'hstorm:pw' }], { allowUserKeys: false });
    const w = workerClusterConfig(config);
    assert.ok(!('nimbus.auth.secret' in w) && !('nimbus.auth.secret.file' in w));
    assert.equal(w['hstorm.zookeeper.auth.payload'], 'hstorm:pw', 'workers need the ZooKeeper credentials');
    // From a file: inline for the worker, which may run as a user that cannot read the file.
    const dir = mkdtempSync(join(tmpdir(), 'hstorm-zkauth-'));
    writeFileSync(join(dir, 'zk'), 'hstorm:from-file\n', { mode: 0o600 });
    const fromFile = workerClusterConfig(buildConfig([{ 'hstorm.zookeeper.auth.payload.file': join(dir, 'zk') }], { allowUserKeys: false }));
    assert.equal(fromFile['hstorm.zookeeper.auth.payload'], 'hstorm:from-file');
    assert.ok(!('hstorm.zookeeper.auth.payload.file' in fromFile));
  });
});
