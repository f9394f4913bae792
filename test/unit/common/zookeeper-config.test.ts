/**
 * The zoo.cfg `hstorm dev-zookeeper` (and the test harness) writes: autopurge
 * is on — hourly, the last 3 snapshots kept — so the transaction log of a
 * long-running development cluster does not grow without bound (the probe of
 * issue 29 wrote 77 GB of logs in minutes without it).
 */
import assert from 'node:assert/strict';
import { zooConfig } from '../../../common/zookeeper-server.js';

function parse(cfg: string): Map<string, string> {
  return new Map(
    cfg
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]),
  );
}

describe('dev ZooKeeper config', () => {
  it('turns autopurge on, fsyncs by default, and takes a snapCount when given', () => {
    const c = parse(zooConfig({ port: 2181, dataDir: '/var/lib/zk' }));
    assert.equal(c.get('autopurge.purgeInterval'), '1');
    assert.equal(c.get('autopurge.snapRetainCount'), '3');
    assert.equal(c.get('forceSync'), 'yes');
    assert.equal(c.get('dataDir'), '/var/lib/zk');
    assert.equal(c.has('snapCount'), false);
    assert.equal(parse(zooConfig({ port: 2181, dataDir: '/d', snapCount: 50_000, forceSync: false })).get('snapCount'), '50000');
  });
});
