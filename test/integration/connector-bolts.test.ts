/**
 * The sink and lookup bolts against real Redis and PostgreSQL, through
 * completeTopology (hstorm/testing: real workers, the spout mocked): lookups
 * enrich in batches (a missing key gives null), RedisBolt and PostgresBolt
 * write what they acked, the upsert keeps one row per key with the last
 * values, the plain insert keeps every tuple, a table with an array column
 * is written too (without unnest, which would flatten the arrays).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createClient } from 'redis';
import { completeTopology } from '../../testing/index.js';
import { PACKAGE_ROOT } from '../helpers/cluster-processes.js';
import { sql } from '../helpers/connector-pipeline.js';
import { startTestPostgres, type TestPostgres } from '../helpers/servers/postgres.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'connector-bolts-topology.js');

describe('connector bolts against real Redis and PostgreSQL', function () {
  this.timeout(180_000);
  let redis: TestRedis;
  let postgres: TestPostgres;

  before(async function () {
    this.timeout(120_000);
    [redis, postgres] = await Promise.all([startTestRedis(), startTestPostgres()]);
    const client = await createClient({ url: redis.url }).connect();
    await client.hSet('names', { u1: 'Ada', u2: 'Grace' });
    client.destroy();
    await sql(postgres.url, 'CREATE TABLE regions (user_id text PRIMARY KEY, region text)');
    await sql(postgres.url, "INSERT INTO regions VALUES ('u1', 'north'), ('u3', 'south')");
    await sql(postgres.url, 'CREATE TABLE enriched (user_id text PRIMARY KEY, amount int, name text, region text)');
    await sql(postgres.url, 'CREATE TABLE audit (user_id text, amount int)');
    await sql(postgres.url, 'CREATE TABLE tagged (user_id text PRIMARY KEY, tags text[])');
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });

  it('enriches from Redis and PostgreSQL and writes to both, acking after each commit', async () => {
    const orders = [
      ['u1', 10],
      ['u2', 20],
      ['u3', 30],
      ['u1', 15],
    ];
    const result = await completeTopology(FIXTURE, {
      mockedSources: { orders },
      config: { 'fixture.redis.url': redis.url, 'fixture.postgres.url': postgres.url },
      timeoutMs: 120_000,
    });
    assert.equal(result.acked.orders, 4);
    assert.equal(result.failed.orders ?? 0, 0);
    const byAmount = (rows: unknown[][]) => [...rows].sort((a, b) => Number(a[1]) - Number(b[1]));
    assert.deepEqual(byAmount(result.readTuples('name')), [
      ['u1', 10, 'Ada'],
      ['u1', 15, 'Ada'],
      ['u2', 20, 'Grace'],
      ['u3', 30, null],
    ]);
    assert.deepEqual(byAmount(result.readTuples('region')), [
      ['u1', 10, 'Ada', 'north'],
      ['u1', 15, 'Ada', 'north'],
      ['u2', 20, 'Grace', null],
      ['u3', 30, null, 'south'],
    ]);
    const client = await createClient({ url: redis.url }).connect();
    const totals = await client.zRangeWithScores('amounts', 0, -1);
    client.destroy();
    // ZADD sets the score: the later of u1's two orders, whichever came last, is one of them.
    assert.deepEqual(totals.map((t) => t.value).sort(), ['u1', 'u2', 'u3']);
    assert.ok([10, 15].includes(totals.find((t) => t.value === 'u1')!.score));
    const enriched = await sql(postgres.url, 'SELECT user_id, amount, name, region FROM enriched ORDER BY user_id');
    assert.deepEqual(enriched.map((r) => r.user_id), ['u1', 'u2', 'u3'], 'one row per key');
    assert.deepEqual(enriched.slice(1), [
      { user_id: 'u2', amount: 20, name: 'Grace', region: null },
      { user_id: 'u3', amount: 30, name: null, region: 'south' },
    ]);
    const audit = await sql(postgres.url, 'SELECT user_id, amount FROM audit ORDER BY amount');
    assert.deepEqual(audit.map((r) => [r.user_id, r.amount]), [['u1', 10], ['u1', 15], ['u2', 20], ['u3', 30]], 'a plain insert keeps every tuple');
    const tagged = await sql(postgres.url, 'SELECT user_id, tags FROM tagged ORDER BY user_id');
    assert.deepEqual(tagged, [
      { user_id: 'u1', tags: ['Ada', 'north'] },
      { user_id: 'u2', tags: ['Grace', null] },
      { user_id: 'u3', tags: [null, 'south'] },
    ]);
  });
});
