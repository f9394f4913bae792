/**
 * BatchingBolt with a store that refuses one row: the batch is halved until
 * the refused tuple stands alone, every other tuple is written once and acked
 * in its order, only that tuple is rejected (failed and reported, with the
 * store's code and message); a failure that is not about a row fails the
 * batch whole, without a split — and which PostgreSQL errors are about a row.
 * The real PostgreSQL case is test/integration/postgres-rejected-rows.test.ts.
 */
import assert from 'node:assert/strict';
import { BatchingBolt, type RowRejection } from '../../../connectors/common/batching-bolt.js';
import { rowRejectionOf } from '../../../connectors/postgres/row-rejection.js';
import type { Tuple } from '../../../topology-sdk/index.js';
import { CapturingOutputCollector, testContext, testTuple } from '../../../testing/index.js';
import { ManualClock } from '../../helpers/manual-clock.js';

class PickySink extends BatchingBolt {
  readonly writes: string[][] = [];
  readonly rows: string[] = [];
  down = false;

  constructor(private readonly refuse: ReadonlySet<string>) {
    super('PickySink', { size: 8, flushMs: 60_000 }, new ManualClock());
  }
  protected open(): void {}
  protected shutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected writeBatch(tuples: readonly Tuple[]): Promise<void> {
    const ids = tuples.map((t) => t.getString(0));
    this.writes.push(ids);
    if (this.down) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    const bad = ids.find((id) => this.refuse.has(id));
    // All or nothing, as one transaction.
    if (bad !== undefined) return Promise.reject(Object.assign(new Error(`bad value in ${bad}`), { code: '22021' }));
    this.rows.push(...ids);
    return Promise.resolve();
  }
  protected override rowRejection(err: unknown): RowRejection | null {
    return rowRejectionOf(err);
  }
}

async function run(sink: PickySink, ids: readonly string[]) {
  const out = new CapturingOutputCollector();
  await sink.prepare({}, testContext({ component: 'sink' }), out);
  for (const id of ids) await sink.execute(testTuple([id], { fields: ['id'] }));
  await sink.cleanup();
  return { out, acked: out.acked.map((t) => t.getString(0)), failed: out.failed.map((t) => t.getString(0)) };
}

describe('connectors: a batch with a row the store refuses', () => {
  it('halves the batch down to the refused tuple: the other seven written once each, in order, and acked; only it fails', async () => {
    const sink = new PickySink(new Set(['t5']));
    const ids = ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'];
    const { out, acked, failed } = await run(sink, ids);
    assert.deepEqual(sink.rows, ['t0', 't1', 't2', 't3', 't4', 't6', 't7']);
    assert.deepEqual(acked, ['t0', 't1', 't2', 't3', 't4', 't6', 't7']);
    assert.deepEqual(failed, ['t5']);
    assert.deepEqual(sink.writes, [ids, ['t0', 't1', 't2', 't3'], ['t4', 't5', 't6', 't7'], ['t4', 't5'], ['t4'], ['t5'], ['t6', 't7']]);
    assert.equal(out.errors.length, 1);
    const err = out.errors[0] as { code: string; storeCode: string; message: string };
    assert.equal(err.code, 'HSTORM_ERR_CONNECTOR_REJECTED');
    assert.equal(err.storeCode, '22021');
    assert.match(err.message, /PickySink: a row was refused \(bad value in t5; SQLSTATE 22021\); the rest of its batch was written, this tuple was failed/);
  });

  it('isolates several refused rows, the first and the last included', async () => {
    const sink = new PickySink(new Set(['t0', 't3', 't7']));
    const { acked, failed } = await run(sink, ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    assert.deepEqual(acked, ['t1', 't2', 't4', 't5', 't6']);
    assert.deepEqual(failed, ['t0', 't3', 't7']);
    assert.deepEqual(sink.rows, acked, 'each good row written exactly once');
  });

  it('fails a batch whole, with no split, when the failure is not about a row (the server is down)', async () => {
    const sink = new PickySink(new Set());
    sink.down = true;
    const ids = ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'];
    const { out, acked, failed } = await run(sink, ids);
    assert.deepEqual(sink.writes, [ids], 'one write, no split');
    assert.deepEqual(acked, []);
    assert.deepEqual(failed, ids);
    assert.deepEqual(
      out.errors.map((e) => (e as { code: string }).code),
      ['HSTORM_ERR_CONNECTOR_WRITE'],
    );
  });

  it("takes SQLSTATE classes 22 and 23 as a row's fault, and nothing else", () => {
    const pgError = (code?: string) => Object.assign(new Error('x'), code === undefined ? {} : { code });
    for (const code of ['22021', '22P02', '22003', '23505', '23502', '23503', '23514']) assert.deepEqual(rowRejectionOf(pgError(code)), { code, message: 'x' }, code);
    for (const code of [undefined, '08006', '08001', '57P01', '57P03', '42703', '42P01', '40001', '53300', 'ECONNREFUSED', '2202', '220211']) assert.equal(rowRejectionOf(pgError(code)), null, String(code));
    assert.equal(rowRejectionOf(null), null);
  });
});
