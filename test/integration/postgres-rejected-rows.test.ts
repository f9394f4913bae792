/**
 * PostgresBolt against a real PostgreSQL when one value of a batch is one
 * PostgreSQL will never take (a NUL byte in text: SQLSTATE 22021): the six
 * good tuples batched with it are written — counted per id, in tables with no
 * key to hide a duplicate — and acked; only the poison tuple fails, its error
 * carrying PostgreSQL's message and SQLSTATE (the component's error, or its
 * failure stream's `reason` and `sqlstate`). Through completeTopology (real
 * workers) and through one bolt in this process (its collector's record). With
 * the server down, the batch fails whole, as before: no split.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PostgresBolt } from '../../connectors/postgres/index.js';
import { CapturingOutputCollector, completeTopology, testContext, testTuple } from '../../testing/index.js';
import { PACKAGE_ROOT } from '../helpers/cluster-processes.js';
import { sql } from '../helpers/connector-pipeline.js';
import { startTestPostgres, type TestPostgres } from '../helpers/servers/postgres.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'postgres-poison-topology.js');
const GOOD = ['g1', 'g2', 'g3', 'g4', 'g5', 'g6'];
/** Six good rows and, fourth, the poison one. */
const ROWS = [
  ['g1', 'one'],
  ['g2', 'two'],
  ['g3', 'three'],
  ['bad', 'nul \u0000 byte'],
  ['g4', 'four'],
  ['g5', 'five'],
  ['g6', 'six'],
];

describe('PostgresBolt: a row PostgreSQL refuses does not starve its batch', function () {
  this.timeout(180_000);
  let postgres: TestPostgres;

  before(async function () {
    this.timeout(120_000);
    postgres = await startTestPostgres();
  });

  after(async function () {
    this.timeout(60_000);
    await postgres?.stop();
  });

  /** Rows per id, counted (the tables have no key). */
  async function countsIn(table: string): Promise<Record<string, number>> {
    const rows = await sql<{ id: string; n: string }>(postgres.url, `SELECT id, count(*) AS n FROM ${table} GROUP BY id`);
    return Object.fromEntries(rows.map((r) => [r.id, Number(r.n)]));
  }
  const once = Object.fromEntries(GOOD.map((id) => [id, 1]));

  it('writes and acks the six good tuples of a batch of seven; the NUL one fails, or goes to the failure stream with SQLSTATE 22021 (real workers)', async () => {
    await sql(postgres.url, 'CREATE TABLE poison_rows (id text, note text)');
    await sql(postgres.url, 'CREATE TABLE poison_dead (id text, note text)');
    const result = await completeTopology(FIXTURE, { mockedSources: { rows: ROWS }, config: { 'fixture.postgres.url': postgres.url }, timeoutMs: 120_000 });
    assert.deepEqual(await countsIn('poison_rows'), once);
    assert.deepEqual(await countsIn('poison_dead'), once);
    // `sink` failed the poison tuple's tree; `dead` acked its part after sending it on.
    assert.equal(result.acked.rows, 6);
    assert.equal(result.failed.rows, 1);
    const dead = result.readTuples('dead', 'failed');
    assert.equal(dead.length, 1);
    const [id, note, reason, sqlstate] = dead[0]!;
    assert.deepEqual([id, note, sqlstate], ['bad', 'nul \u0000 byte', '22021']);
    assert.match(String(reason), /invalid byte sequence for encoding "UTF8": 0x00/);
  });

  /** One bolt in this process, fed `rows` in one batch of seven, then closed (which flushes). */
  async function runBolt(table: string, url: string) {
    const bolt = new PostgresBolt({ connection: { connectionString: url, connectTimeoutMs: 2000 }, table, columns: ['id', 'note'], mode: 'insert', batch: { size: 7, flushMs: 60_000 } });
    const out = new CapturingOutputCollector();
    const ctx = testContext({ component: 'sink' });
    await bolt.prepare({}, ctx, out);
    for (const r of ROWS) await bolt.execute(testTuple(r, { fields: ['id', 'note'] }));
    await bolt.cleanup();
    return { out, counters: ctx.metricsNow().counters, acked: out.acked.map((t) => t.getString(0)), failed: out.failed.map((t) => t.getString(0)) };
  }

  it("reports the poison row's own error as the component's: PostgreSQL's message and SQLSTATE 22021, not a count of failures", async () => {
    await sql(postgres.url, 'CREATE TABLE poison_one (id text, note text)');
    const { out, counters, acked, failed } = await runBolt('poison_one', postgres.url);
    assert.deepEqual(await countsIn('poison_one'), once);
    assert.deepEqual(acked.sort(), [...GOOD].sort());
    assert.deepEqual(failed, ['bad']);
    assert.deepEqual(
      out.errors.map((e) => (e as { code: string }).code),
      ['HSTORM_ERR_CONNECTOR_REJECTED'],
    );
    const err = out.errors[0] as { storeCode: string; message: string };
    assert.equal(err.storeCode, '22021');
    assert.match(err.message, /^PostgresBolt: a row was refused \(invalid byte sequence for encoding "UTF8": 0x00; SQLSTATE 22021\)/);
    assert.equal(counters['connector.rows.rejected'], 1);
    assert.equal(counters['connector.tuples.written'], 6);
    assert.equal(counters['connector.batches.failed'] ?? 0, 0);
  });

  it('fails the batch whole, with no split, while the server is down (a connection error)', async () => {
    await postgres.takeDown();
    try {
      const { out, counters, acked, failed } = await runBolt('poison_one', postgres.url);
      assert.deepEqual(acked, []);
      assert.deepEqual(failed, ROWS.map((r) => r[0]));
      assert.deepEqual(
        out.errors.map((e) => (e as { code: string }).code),
        ['HSTORM_ERR_CONNECTOR_WRITE'],
      );
      assert.match((out.errors[0] as Error).message, /a batch of 7 tuple\(s\) was not committed/);
      assert.equal(counters['connector.batches.failed'], 1);
      assert.equal(counters['connector.rows.rejected'] ?? 0, 0);
    } finally {
      await postgres.bringUp();
    }
  });
});
