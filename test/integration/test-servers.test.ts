/**
 * The test harness's database and broker servers (test/helpers/servers/):
 * each starts from its Debian package on a free port in its own directory,
 * answers a real client, keeps its data across a take-down when asked to, and
 * leaves nothing behind when stopped.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import amqp from 'amqplib';
import pg from 'pg';
import { createClient } from 'redis';
import { startTestPostgres } from '../helpers/servers/postgres.js';
import { startTestRabbitMq } from '../helpers/servers/rabbitmq.js';
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

  describe('postgres', () => {
    it('keeps committed rows across a fast restart and a kill -9, and removes its directories when stopped', async () => {
      const postgres = await startTestPostgres();
      const query = async (sql: string): Promise<unknown[]> => {
        const client = new pg.Client({ connectionString: postgres.url });
        await client.connect();
        try {
          return (await client.query(sql)).rows;
        } finally {
          await client.end();
        }
      };
      try {
        await query('CREATE TABLE t (id int PRIMARY KEY)');
        await query('INSERT INTO t VALUES (1)');
        await postgres.takeDown();
        await assert.rejects(query('SELECT 1'));
        await postgres.bringUp();
        await query('INSERT INTO t VALUES (2)');
        postgres.process.signal('SIGKILL');
        await postgres.process.exited;
        await postgres.bringUp();
        assert.deepEqual(await query('SELECT id FROM t ORDER BY id'), [{ id: 1 }, { id: 2 }]);
        // The unix socket is in the server's own directory.
        const bySocket = new pg.Client({ host: postgres.socketDir, port: postgres.port, user: postgres.user, database: postgres.database });
        await bySocket.connect();
        await bySocket.end();
      } finally {
        await postgres.stop();
      }
      assert.equal(existsSync(postgres.dataDir), false);
    });
  });

  describe('rabbitmq', () => {
    it("keeps a durable queue's persistent messages across takeDown and bringUp, and removes its directory when stopped", async () => {
      const rabbit = await startTestRabbitMq();
      try {
        let conn = await amqp.connect(rabbit.url);
        let ch = await conn.createConfirmChannel();
        await ch.assertQueue('q', { durable: true });
        ch.sendToQueue('q', Buffer.from('m1'), { persistent: true });
        await ch.waitForConfirms();
        await conn.close();
        await rabbit.takeDown();
        await assert.rejects(amqp.connect(rabbit.url));
        await rabbit.bringUp();
        conn = await amqp.connect(rabbit.url);
        try {
          ch = await conn.createConfirmChannel();
          const got = await ch.get('q', { noAck: true });
          assert.ok(got);
          assert.equal(got.content.toString(), 'm1');
        } finally {
          await conn.close();
        }
      } finally {
        await rabbit.stop();
      }
      assert.equal(existsSync(rabbit.dir), false);
    });
  });
});
