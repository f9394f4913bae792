/**
 * The connectors against the real servers (Debian's redis-server,
 * rabbitmq-server and postgresql, started by the harness on free ports) and
 * real worker processes on a LocalCluster: ids written to a Redis stream or a
 * RabbitMQ queue end up in a PostgreSQL table exactly once through a worker
 * killed with -9, a broker stopped for 10 s and a PostgreSQL restart; the
 * broker's own bookkeeping is empty at the end (no pending entry in the Redis
 * group, no message left in the queue); entries left pending on a consumer
 * that went idle are claimed; while a broker is down `describe` shows the
 * outage as the spout's last error, with its address and no credentials.
 */
import assert from 'node:assert/strict';
import type { LocalCluster } from '../../cli/local-cluster.js';
import { startTestPostgres, type TestPostgres } from '../helpers/servers/postgres.js';
import { startTestRabbitMq, type TestRabbitMq } from '../helpers/servers/rabbitmq.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';
import { holdFaultFor, waitFor } from '../helpers/wait-for.js';
import { createClient } from 'redis';
import {
  createSeenTable,
  fillQueue,
  fillStream,
  missingIds,
  queueConsumers as consumers,
  queueDepth,
  redisPending,
  rowCount,
  startConnectorCluster,
  submitFixture,
  workerPidOf,
} from '../helpers/connector-pipeline.js';

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('connectors against real Redis, RabbitMQ and PostgreSQL', function () {
  this.timeout(240_000);
  let redis: TestRedis;
  let rabbit: TestRabbitMq;
  let postgres: TestPostgres;
  let cluster: LocalCluster;

  before(async function () {
    this.timeout(180_000);
    [redis, rabbit, postgres] = await Promise.all([startTestRedis({ persistent: true }), startTestRabbitMq(), startTestPostgres()]);
    cluster = await startConnectorCluster(2);
  });

  after(async function () {
    this.timeout(120_000);
    await cluster?.shutdown();
    await Promise.all([redis?.stop(), rabbit?.stop(), postgres?.stop()]);
  });

  /** Topologies still running: each test's is killed after it, so the next finds the slots free. */
  const running = new Set<string>();

  afterEach(async function () {
    this.timeout(120_000);
    for (const name of running) {
      await cluster.kill(name).catch(() => undefined);
      await waitFor(`${name} gone`, async () => (await cluster.topologyDetail(name).catch(() => null)) === null, 60_000, 250);
    }
    running.clear();
  });

  /** The fixture with one source, two workers, and a message timeout short enough that a killed worker's trees are replayed soon. */
  const run = async (name: string, table: string, source: Record<string, unknown>): Promise<void> => {
    await createSeenTable(postgres.url, table);
    running.add(name);
    await submitFixture(cluster, name, {
      ...source,
      'fixture.postgres.url': postgres.url,
      'fixture.table': table,
      'topology.workers': 2,
      'topology.message.timeout.secs': 10,
      'topology.max.spout.pending': 500,
    });
  };

  const allThere = async (table: string, n: number, timeoutMs = 150_000): Promise<void> => {
    await waitFor(`${n} rows in ${table}`, async () => (await rowCount(postgres.url, table)) === n, timeoutMs, 250);
  };

  it('Redis stream → PostgreSQL: a kill -9 of the spout worker loses nothing, and the group ends with nothing pending', async () => {
    const N = 20_000;
    await fillStream(redis.url, 'kill9', N, 'k');
    await run('redis-kill', 'seen_kill', { 'fixture.redis.url': redis.url, 'fixture.stream': 'kill9' });
    await waitFor('some rows written', async () => ((await rowCount(postgres.url, 'seen_kill')) ?? 0) > 2000, 120_000, 100);
    const pid = await workerPidOf(cluster, 'redis-kill', 'redis');
    process.kill(pid, 'SIGKILL');
    await allThere('seen_kill', N);
    assert.notEqual(await workerPidOf(cluster, 'redis-kill', 'redis'), pid, 'the spout runs in a new worker');
    assert.deepEqual(await missingIds(postgres.url, 'seen_kill', ids('k', N)), []);
    await waitFor('no entry pending in the group', async () => (await redisPending(redis.url, 'kill9', 'redis-kill.redis')) === 0, 60_000, 250);
  });

  it('RabbitMQ → PostgreSQL: the broker stopped for 10 s loses nothing; describe shows the outage while it lasts; the queue ends empty', async () => {
    const N = 10_000;
    await fillQueue(rabbit.url, 'outage', N, 'q');
    await run('rabbit-outage', 'seen_rabbit', { 'fixture.rabbitmq.url': rabbit.url, 'fixture.queue': 'outage' });
    await waitFor('some rows written', async () => ((await rowCount(postgres.url, 'seen_rabbit')) ?? 0) > 1000, 120_000, 100);
    await rabbit.takeDown();
    try {
      const shown = await waitFor('the outage as the spout\'s last error', async () => {
        const e = (await cluster.topologyDetail('rabbit-outage')).components.rabbit?.lastError;
        return e && /HSTORM_ERR_CONNECTOR_UNAVAILABLE|is unreachable/.test(e.error) ? e : null;
      }, 30_000, 250);
      assert.match(shown.error, new RegExp(`RabbitMqSpout: 127\\.0\\.0\\.1:${rabbit.port} is unreachable`));
      assert.ok(!shown.error.includes('guest:guest'), 'no credentials in the error');
      // The outage's length is what is under test (issue 25: a broker stopped 10 s); nothing is asserted about it.
      await holdFaultFor(10_000);
    } finally {
      await rabbit.bringUp();
    }
    await allThere('seen_rabbit', N);
    assert.deepEqual(await missingIds(postgres.url, 'seen_rabbit', ids('q', N)), []);
    await cluster.kill('rabbit-outage');
    running.delete('rabbit-outage');
    // With the consumer gone, anything it left unacked would be back in the queue.
    await waitFor('rabbit-outage gone', async () => (await cluster.topologyDetail('rabbit-outage').catch(() => null)) === null, 60_000, 250);
    await waitFor('the consumer gone from the queue', async () => (await consumers(rabbit.url, 'outage')) === 0, 60_000, 250);
    assert.equal(await queueDepth(rabbit.url, 'outage'), 0);
  });

  it('Redis stopped for 10 s, then PostgreSQL restarted: every id once, nothing pending', async () => {
    const N = 20_000;
    await fillStream(redis.url, 'outage', N, 'o');
    await run('redis-outage', 'seen_outage', { 'fixture.redis.url': redis.url, 'fixture.stream': 'outage' });
    await waitFor('some rows written', async () => ((await rowCount(postgres.url, 'seen_outage')) ?? 0) > 2000, 120_000, 100);
    await redis.takeDown();
    try {
      await holdFaultFor(10_000);
    } finally {
      await redis.bringUp();
    }
    const before = (await rowCount(postgres.url, 'seen_outage')) ?? 0;
    await waitFor('rows written again', async () => ((await rowCount(postgres.url, 'seen_outage')) ?? 0) > before, 60_000, 100);
    await postgres.takeDown();
    await postgres.bringUp();
    await allThere('seen_outage', N);
    assert.deepEqual(await missingIds(postgres.url, 'seen_outage', ids('o', N)), []);
    await waitFor('no entry pending in the group', async () => (await redisPending(redis.url, 'outage', 'redis-outage.redis')) === 0, 60_000, 250);
  });

  it('claims the entries pending on a consumer that went idle', async () => {
    const N = 300;
    await fillStream(redis.url, 'ghost', N, 'g');
    // A consumer that read 100 entries and died before acknowledging any.
    const client = await createClient({ url: redis.url }).connect();
    try {
      await client.xGroupCreate('ghost', 'redis-ghost.redis', '0');
      const read = await client.xReadGroup('redis-ghost.redis', 'gone-for-good', { key: 'ghost', id: '>' }, { COUNT: 100 });
      assert.equal(read?.[0]?.messages.length, 100);
    } finally {
      client.destroy();
    }
    await run('redis-ghost', 'seen_ghost', { 'fixture.redis.url': redis.url, 'fixture.stream': 'ghost' });
    // claimIdleMs is 5 s in the fixture: the ghost's entries come once it has been idle that long.
    await allThere('seen_ghost', N, 90_000);
    assert.deepEqual(await missingIds(postgres.url, 'seen_ghost', ids('g', N)), []);
    await waitFor('no entry pending in the group', async () => (await redisPending(redis.url, 'ghost', 'redis-ghost.redis')) === 0, 60_000, 250);
  });
});
