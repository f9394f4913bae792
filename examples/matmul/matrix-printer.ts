/**
 * MatrixPrinter (the paper's Fig. 9 sink): checks every product's checksum
 * against the one the reader computed, and with `matmul.output` set appends
 * one CSV line per product (`id,n,checksum,expected,ok`) to that file.
 *
 * A wrong checksum fails the tuple (the reader replays it) and is logged:
 * a run whose spouts report no failures verified every product it acked.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { BasicBolt, type Conf, type TopologyContext, type Tuple } from 'hstorm';
import { checksumMatches } from './matrix.js';

export class MatrixPrinter extends BasicBolt {
  verified = 0;
  wrong = 0;
  private log: TopologyContext['log'] | null = null;
  private out: WriteStream | null = null;

  override prepare(conf: Conf, ctx: TopologyContext): void {
    this.log = ctx.log;
    const path = conf['matmul.output'] as string | undefined;
    // O_APPEND: every task writes whole lines to the same file without clobbering another's.
    if (path) this.out = createWriteStream(path, { flags: 'a' });
  }

  execute(t: Tuple): void {
    const n = t.getNumberByField('n');
    const sum = t.getNumberByField('sum');
    const expected = t.getNumberByField('expected');
    const ok = checksumMatches(sum, expected, n, Math.abs(expected) + n);
    this.out?.write(`${String(t.getValueByField('id'))},${n},${sum},${expected},${ok ? 1 : 0}\n`);
    if (!ok) {
      this.wrong++;
      this.log?.error({ id: t.getValueByField('id'), sum, expected }, 'wrong product checksum');
      throw new Error(`product ${String(t.getValueByField('id'))} has a wrong checksum`);
    }
    this.verified++;
  }

  override async cleanup(): Promise<void> {
    const out = this.out;
    this.out = null;
    if (!out) return;
    out.end();
    await once(out, 'finish');
  }
}
