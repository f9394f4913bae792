/**
 * Where a bad config key came from, as the CLI reports it: a `-c` key is
 * reported as from the -c options (never as "in hstorm.yaml"), a file key as
 * from its file; a misspelt hstorm key given with -c is refused by every
 * command (not only submit), with a did-you-mean.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientConfig, splitOverrides } from '../../../cli/commands/client-config.js';
import { loadClusterConfig } from '../../../cli/commands/config-options.js';
import { ConfigError } from '../../../common/errors.js';

function refused(key: string, ...parts: (string | RegExp)[]) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof ConfigError, `not a ConfigError: ${String(e)}`);
    assert.equal(e.key, key);
    for (const p of parts) {
      if (typeof p === 'string') assert.ok(e.message.includes(p), `"${e.message}" does not mention ${p}`);
      else assert.match(e.message, p);
    }
    return true;
  };
}

describe('cli config sources', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-cli-config-'));
    file = join(dir, 'cluster.yaml');
    writeFileSync(file, 'nimbus.http.port: 7000\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a bad -c key of a daemon as from the -c options, not from the file', () => {
    assert.throws(() => loadClusterConfig({ config: file, conf: ['my.key=1'] }), refused('my.key', 'in the -c options'));
    assert.throws(() => loadClusterConfig({ conf: ['nimbus.sheduler=even'] }), (e: unknown) => {
      refused('nimbus.sheduler', 'in the -c options', 'did you mean "nimbus.scheduler"')(e);
      assert.ok(!(e as Error).message.includes('hstorm.yaml'), (e as Error).message);
      return true;
    });
    assert.throws(() => loadClusterConfig({ config: file, conf: ['nimbus.http.port=0'] }), refused('nimbus.http.port', 'in the -c options', ': 0'));
  });

  it('reports a bad key in the file as from the file', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'nimbus.http.prot: 7000\n');
    assert.throws(() => loadClusterConfig({ config: bad, conf: [] }), refused('nimbus.http.prot', `in ${bad}`, 'did you mean "nimbus.http.port"'));
    assert.throws(() => clientConfig({ config: bad, conf: [] }), refused('nimbus.http.prot', `in ${bad}`));
  });

  it('refuses a misspelt hstorm key on any client command, with a did-you-mean', () => {
    assert.throws(() => clientConfig({ config: file, conf: ['nimbus.hots=example.org'] }), refused('nimbus.hots', 'in the -c options', 'did you mean "nimbus.host"'));
    assert.throws(() => splitOverrides(['topology.message.timeout.secs=0']), refused('topology.message.timeout.secs', 'in the -c options', /allowed: a number > 0/));
  });

  it('refuses a cluster key no client reads (worker.childopts on submit), naming its scope, instead of dropping it', () => {
    for (const c of ['worker.childopts=["--max-old-space-size=64"]', 'supervisor.worker.user=nobody', 'nimbus.scheduler=even', 'hstorm.zookeeper.servers=["zk:2181"]']) {
      const key = c.slice(0, c.indexOf('='));
      assert.throws(() => clientConfig({ config: file, conf: [c] }), refused(key, 'in the -c options', 'is a cluster key', "the daemons' config", 'nimbus.host, nimbus.http.port'));
    }
    // The keys a client does read still configure it; the same keys in its file are tolerated (one hstorm.yaml for all).
    writeFileSync(join(dir, 'shared.yaml'), 'nimbus.http.port: 7001\nworker.childopts: ["--max-old-space-size=64"]\n');
    const { config } = clientConfig({ config: join(dir, 'shared.yaml'), conf: ['nimbus.host=example.org', 'nimbus.auth.secret=0123456789abcdef0123'] });
    assert.equal(config['nimbus.host'], 'example.org');
    assert.equal(config['nimbus.http.port'], 7001);
  });

  it('still passes the author\'s own keys and valid keys through', () => {
    const { cluster, topology } = splitOverrides(['nimbus.host=example.org', 'topology.workers=3', 'wordcount.words=[a, b]']);
    assert.deepEqual(cluster, { 'nimbus.host': 'example.org' });
    assert.deepEqual(topology, { 'topology.workers': 3, 'wordcount.words': ['a', 'b'] });
    assert.equal(clientConfig({ config: file, conf: ['nimbus.host=example.org'] }).config['nimbus.http.port'], 7000);
  });
});
