/**
 * Benchmark CSV files read back as written: a value with a comma, a quote or a
 * newline is quoted (csv-stringify), and a standard parser (csv-parse) gives
 * the same cells back.
 */
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { toCsv, type CsvRow } from '../../../bench/support/csv.js';

describe('bench CSV', () => {
  it('round-trips values with commas, quotes and newlines through a CSV parser', () => {
    const rows: CsvRow[] = [
      { bolt: 'matmul-gpu', backend: 'webgpu (software adapter: llvmpipe, "LLVM 15")', n: 512, ok: true },
      { bolt: 'CPU topology, 2 workers', backend: 'line one\nline two', n: 1024, ok: false, extra: null },
    ];
    const text = toCsv(rows);
    assert.match(text.split('\n')[0]!, /^bolt,backend,n,ok,extra\r?$/);
    const back = parse(text, { columns: true }) as Record<string, string>[];
    assert.deepEqual(back, [
      { bolt: 'matmul-gpu', backend: 'webgpu (software adapter: llvmpipe, "LLVM 15")', n: '512', ok: 'true', extra: '' },
      { bolt: 'CPU topology, 2 workers', backend: 'line one\nline two', n: '1024', ok: 'false', extra: '' },
    ]);
  });

  it('writes nothing for no rows', () => {
    assert.equal(toCsv([]), '');
  });
});
