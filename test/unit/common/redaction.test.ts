/**
 * Secret-bearing keys and URL passwords (common/security/redaction.ts): which
 * keys count, that a password holding "@" goes whole, that redaction walks
 * nested maps and lists, keeps "not set" visible and never overflows on a
 * record nested deeper than configs may be.
 */
import assert from 'node:assert/strict';
import { MAX_CONFIG_DEPTH } from '../../../common/config/index.js';
import { isSecretKey, isSecretOrItsFile, redactConfig, redactUrlPasswords, REDACTED } from '../../../common/security/redaction.js';

describe('secret redaction', () => {
  it('knows the cluster\'s secrets and every key ending in .password or .secret', () => {
    for (const k of ['nimbus.auth.secret', 'hstorm.zookeeper.auth.payload', 'db.password', 'myapp.api.secret', 'password', 'Mail.PASSWORD', 'api.token', 'myapp.api.key', 'aws.credentials', 'smtp.passwd']) assert.ok(isSecretKey(k), k);
    for (const k of ['nimbus.auth.secret.file', 'nimbus.auth.reads', 'passwords.count', 'secretKey', 'topology.workers', 'my.passwordless']) assert.ok(!isSecretKey(k), k);
    assert.ok(isSecretOrItsFile('nimbus.auth.secret.file') && isSecretOrItsFile('hstorm.zookeeper.auth.payload.file') && isSecretOrItsFile('db.password.file'));
    assert.ok(!isSecretOrItsFile('supervisor.logviewer.file') && !isSecretOrItsFile('topology.workers'));
  });

  it('cuts the whole password of a URL, "@"s in it included, and leaves the rest', () => {
    assert.equal(redactUrlPasswords('redis://probeuser:s3cret@127.0.0.1:6379/0'), 'redis://probeuser:***@127.0.0.1:6379/0');
    // The tail after an "@" in the password used to survive: probeuser:***@TAILSECRET@host.
    assert.equal(redactUrlPasswords('redis://probeuser:pa@TAILSECRET@host:6379'), 'redis://probeuser:***@host:6379');
    assert.equal(redactUrlPasswords('rediss://:only-a-password@h'), 'rediss://:***@h');
    assert.equal(redactUrlPasswords('postgres://u:p@w@db/x?sslmode=require and amqp://a:b@mq'), 'postgres://u:***@db/x?sslmode=require and amqp://a:***@mq');
    for (const plain of ['redis://127.0.0.1:6379', 'redis://user@host', 'mailto:a@b.c', 'no url here', 'http://host/path?x=a:b@c']) assert.equal(redactUrlPasswords(plain), plain);
  });

  it('redacts a config: secret keys that are set, URL passwords at any depth; null stays null, the rest as given', () => {
    const config = {
      'nimbus.auth.secret': 'x'.repeat(20),
      'hstorm.zookeeper.auth.payload': null,
      'topology.workers': 2,
      'topology.state.provider.config': { url: 'redis://u:p@ss@h:1', keyPrefix: 'k:' },
      'my.list': [{ password: 'deep', keep: 'redis://v:w@h' }],
      'db.password': '',
    };
    const shown = redactConfig(config);
    assert.deepEqual(shown, {
      'nimbus.auth.secret': REDACTED,
      'hstorm.zookeeper.auth.payload': null,
      'topology.workers': 2,
      'topology.state.provider.config': { url: 'redis://u:***@h:1', keyPrefix: 'k:' },
      'my.list': [{ password: REDACTED, keep: 'redis://v:***@h' }],
      'db.password': REDACTED,
    });
    assert.equal(config['topology.state.provider.config'].url, 'redis://u:p@ss@h:1', 'the input is left alone');
  });

  it('shows a value nested deeper than a config may be as redacted, without recursing into it', () => {
    let deep: unknown = 'redis://u:p@h';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const shown = redactConfig({ 'my.deep': deep }) as { 'my.deep': unknown };
    let v = shown['my.deep'];
    let levels = 0;
    while (Array.isArray(v)) {
      v = v[0];
      levels++;
    }
    assert.equal(levels, MAX_CONFIG_DEPTH);
    assert.equal(v, REDACTED);
  });
});
