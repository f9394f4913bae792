/**
 * The test harness's database and broker servers (test/helpers/servers/):
 * each starts from its Debian package on a free port in its own directory,
 * answers a real client, keeps its data across a take-down when asked to, and
 * leaves nothing behind when stopped.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createClient } from 'redis';
import { startTestRedis } from '../helpers/servers/redis.js';

describe('test servers', function () {
  this.timeout(120_000);

  describe('redis', () => {
    it('serves a client on its own port and directory, and removes the directory when stopped', async () => {
      const a = await startTestRedis();
      const b = await startTestRedis();
      try {
        assert.notEqual(a.port, b.port);
        assert.notEqual(a.dir, b.dir);
        const client = await createClient({ url: a.url }).connect();
        try {
          await client.set('k', 'v');
          assert.equal(await client.get('k'), 'v');
          // The config is ours alone: no snapshots, no append-only file.
          assert.deepEqual(await client.configGet('save'), { save: '' });
          assert.deepEqual(await client.configGet('appendonly'), { appendonly: 'no' });
        } finally {
          client.destroy();
        }
      } finally {
        await a.stop();
        await b.stop();
      }
      assert.equal(existsSync(a.dir), false);
      assert.equal(existsSync(b.dir), false);
    });

    it('keeps a stream across takeDown and bringUp when persistent', async () => {
      const redis = await startTestRedis({ persistent: true });
      try {
        let client = await createClient({ url: redis.url }).connect();
        const id = await client.xAdd('events', '*', { n: '1' });
        client.destroy();
        await redis.takeDown();
        await assert.rejects(createClient({ url: redis.url, socket: { reconnectStrategy: false } }).connect());
        await redis.bringUp();
        client = await createClient({ url: redis.url }).connect();
        try {
          const entries = await client.xRange('events', '-', '+');
          assert.deepEqual(
            (entries ?? []).map((e) => [e.id, e.message]),
            [[id, { n: '1' }]],
          );
        } finally {
          client.destroy();
        }
      } finally {
        await redis.stop();
      }
    });
  });
});
