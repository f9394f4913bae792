/** Reading what the matmul examples' printer wrote: one `id,n,checksum,expected,ok` line per product. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** Every result line says ok; returns the distinct ids (a replayed message appears once). */
export function verifiedIds(file: string): Set<string> {
  const ids = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [id, , , , ok] = line.split(',');
    assert.equal(ok, '1', `wrong product in ${file}: ${line}`);
    ids.add(id!);
  }
  return ids;
}
