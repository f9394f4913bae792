/**
 * The connectors' exact count (issue 25): 100 000 entries in a Redis stream
 * and 100 000 messages in a RabbitMQ queue, each with a unique id, flow
 * through one topology into one PostgreSQL table while, one after the other,
 * the worker running the Redis spout is killed with -9, the worker running
 * the sink is killed with -9, PostgreSQL is restarted, and both brokers are
 * stopped for 10 s. At the end the table holds every id exactly once (its
 * primary key rules out a second), the Redis group has no pending entry and
 * the queue is empty. Real servers, real worker processes.
 */
import assert from 'node:assert/strict';
import type { LocalCluster } from '../../cli/local-cluster.js';
import { startTestPostgres, type TestPostgres } from '../helpers/servers/postgres.js';
import { startTestRabbitMq, type TestRabbitMq } from '../helpers/servers/rabbitmq.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';
import { holdFaultFor, waitFor } from '../helpers/wait-for.js';
import {
  createSeenTable,
  fillQueue,
  fillStream,
  missingIds,
  queueConsumers,
  queueDepth,
  redisPending,
  rowCount,
  startConnectorCluster,
  submitFixture,
  workerPidOf,
} from '../helpers/connector-pipeline.js';

const N = 100_000;
const TOTAL = 2 * N;
const NAME = 'exact';

describe('connectors: exact count through kill -9 of the spout and sink workers, a PostgreSQL restart and both brokers stopped 10 s', function () {
  this.timeout(600_000);
  let redis: TestRedis;
  let rabbit: TestRabbitMq;
  let postgres: TestPostgres;
  let cluster: LocalCluster;

  before(async function () {
    this.timeout(300_000);
    [redis, rabbit, postgres] = await Promise.all([startTestRedis({ persistent: true }), startTestRabbitMq(), startTestPostgres()]);
    await Promise.all([fillStream(redis.url, 'events', N, 'r'), fillQueue(rabbit.url, 'events', N, 'q'), createSeenTable(postgres.url, 'seen')]);
    cluster = await startConnectorCluster(3);
  });

  after(async function () {
    this.timeout(120_000);
    await cluster?.shutdown();
    await Promise.all([redis?.stop(), rabbit?.stop(), postgres?.stop()]);
  });

  const rows = async (): Promise<number> => (await rowCount(postgres.url, 'seen')) ?? 0;
  const reach = (n: number, what: string): Promise<number> => waitFor(`${what}: ${n} rows`, async () => ((await rows()) >= n ? rows() : null), 300_000, 100);

  it('writes every id exactly once and leaves nothing pending', async () => {
    await submitFixture(cluster, NAME, {
      'fixture.redis.url': redis.url,
      'fixture.rabbitmq.url': rabbit.url,
      'fixture.postgres.url': postgres.url,
      'fixture.table': 'seen',
      'topology.workers': 3,
      'topology.message.timeout.secs': 10,
      'topology.max.spout.pending': 1000,
    });
    const faults: string[] = [];

    await reach(TOTAL * 0.1, 'before killing the spout worker');
    process.kill(await workerPidOf(cluster, NAME, 'redis'), 'SIGKILL');
    faults.push(`spout worker killed at ${await rows()} rows`);

    await reach(TOTAL * 0.3, 'before killing the sink worker');
    process.kill(await workerPidOf(cluster, NAME, 'store'), 'SIGKILL');
    faults.push(`sink worker killed at ${await rows()} rows`);

    await reach(TOTAL * 0.5, 'before restarting PostgreSQL');
    faults.push(`PostgreSQL restarted at ${await rows()} rows`);
    await postgres.takeDown();
    await postgres.bringUp();

    await reach(TOTAL * 0.65, 'before stopping the brokers');
    faults.push(`brokers stopped at ${await rows()} rows`);
    await Promise.all([redis.takeDown(), rabbit.takeDown()]);
    try {
      // The outage's length is what is under test (a broker stopped for 10 s); nothing is asserted about it.
      await holdFaultFor(10_000);
    } finally {
      await Promise.all([redis.bringUp(), rabbit.bringUp()]);
    }

    await waitFor(`all ${TOTAL} rows (${faults.join('; ')})`, async () => (await rows()) === TOTAL, 300_000, 250);
    const expected = [...Array.from({ length: N }, (_, i) => `r${i}`), ...Array.from({ length: N }, (_, i) => `q${i}`)];
    assert.deepEqual(await missingIds(postgres.url, 'seen', expected), []);
    await waitFor('no entry pending in the Redis group', async () => (await redisPending(redis.url, 'events', `${NAME}.redis`)) === 0, 60_000, 250);
    await cluster.kill(NAME);
    await waitFor('the RabbitMQ consumers gone', async () => (await queueConsumers(rabbit.url, 'events')) === 0, 60_000, 250);
    assert.equal(await queueDepth(rabbit.url, 'events'), 0, 'nothing left in the queue, nothing unacked returned to it');
    process.stdout.write(`      faults: ${faults.join('; ')}\n`);
  });
});
