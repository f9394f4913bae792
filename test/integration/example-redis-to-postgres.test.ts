/**
 * examples/redis-to-postgres against real Redis and PostgreSQL: seeded page
 * views run through `hstorm local`'s code path and the table ends with
 * exactly the counts the seed implies (malformed events dropped, users
 * without a country counted as "unknown"); without the servers, the CLI says
 * how to start them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runLocal } from '../../cli/local-run.js';
import { expectedCounts, seed } from '../../examples/redis-to-postgres/seed.js';
import { freePort } from '../helpers/ports.js';
import { runHstorm } from '../helpers/hstorm-cli.js';
import { PACKAGE_ROOT } from '../helpers/cluster-processes.js';
import { sql } from '../helpers/connector-pipeline.js';
import { startTestPostgres, type TestPostgres } from '../helpers/servers/postgres.js';
import { startTestRedis, type TestRedis } from '../helpers/servers/redis.js';

const EXAMPLE = join(PACKAGE_ROOT, 'examples', 'redis-to-postgres');
const EVENTS = 5_000;

describe('examples/redis-to-postgres', function () {
  this.timeout(180_000);
  let redis: TestRedis;
  let postgres: TestPostgres;
  const savedEnv = { ...process.env };

  before(async function () {
    this.timeout(120_000);
    [redis, postgres] = await Promise.all([startTestRedis(), startTestPostgres()]);
  });

  after(async function () {
    this.timeout(60_000);
    process.env = savedEnv;
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });

  it('counts the seeded page views per country and page into PostgreSQL', async () => {
    // The example reads PostgreSQL's address from libpq's variables, in this process and in the workers it starts.
    Object.assign(process.env, { PGHOST: postgres.host, PGPORT: String(postgres.port), PGUSER: postgres.user, PGDATABASE: postgres.database });
    await seed({ events: EVENTS, redisUrl: redis.url });
    const summary = await runLocal({ module: EXAMPLE, durationSec: 120, overrides: { 'redis.url': redis.url }, until: (s) => s.acked >= EVENTS, drainSec: 5 });
    assert.equal(summary.failed, 0);
    assert.equal(summary.components.parse?.counters?.['events.garbage'], EVENTS / 500, 'every malformed event dropped and counted');
    const rows = await sql<{ country: string; page: string; views: string }>(postgres.url, 'SELECT country, page, views FROM page_view_counts');
    const got = new Map(rows.map((r) => [`${r.country} ${r.page}`, Number(r.views)]));
    assert.deepEqual(new Map([...got].sort()), new Map([...expectedCounts(EVENTS)].sort()));
    assert.ok(got.has('unknown /'), 'users without a country are counted as unknown');
  });

  it('says how to start the servers when they do not answer', async () => {
    const r = await runHstorm(['local', EXAMPLE, '--duration', '1', '-c', `redis.url=redis://127.0.0.1:${await freePort()}`], {
      env: { ...process.env, PGHOST: '127.0.0.1', PGPORT: String(await freePort()) },
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Redis at 127\.0\.0\.1:\d+ and PostgreSQL at 127\.0\.0\.1:\d+ did not answer/);
    assert.match(r.stderr, /redis-server --port 6379/);
    assert.match(r.stderr, /initdb/);
  });
});
