/**
 * The Sequential Topology's Checker: every result must be A + steps·B, cell
 * by cell. The expectation is recomputed in float32 (Math.fround after each
 * addition), the way the kernels add; a small tolerance covers a backend
 * that adds in higher precision. A wrong result fails its tuple (the spout
 * replays it) and is logged; `sequential.output` (optional) gets one JSON
 * line per checker task on cleanup: `{ verified, wrong, steps }`.
 */
import { appendFileSync } from 'node:fs';
import { BasicBolt, type Conf, type TopologyContext, type Tuple } from 'hstorm';

export class Checker extends BasicBolt {
  verified = 0;
  wrong = 0;
  private steps = 4;
  private out = '';
  private log: TopologyContext['log'] | null = null;

  override prepare(conf: Conf, ctx: TopologyContext): void {
    this.steps = (conf['sequential.steps'] as number | undefined) ?? 4;
    this.out = (conf['sequential.output'] as string | undefined) ?? '';
    this.log = ctx.log;
  }

  execute(t: Tuple): void {
    const a = t.getValueByField('a') as Float32Array;
    const b = t.getValueByField('b') as Float32Array;
    const m = t.getValueByField('m') as Float32Array;
    const steps = t.getNumberByField('steps');
    const bad = steps === this.steps ? firstMismatch(a, b, m, steps) : 0;
    if (steps !== this.steps || bad >= 0) {
      this.wrong++;
      this.log?.error({ id: t.getValueByField('id'), steps, cell: bad }, 'wrong sequential result');
      throw new Error(`result ${String(t.getValueByField('id'))} is wrong (${steps} of ${this.steps} steps, first bad cell ${bad})`);
    }
    this.verified++;
  }

  override cleanup(): void {
    if (this.out) appendFileSync(this.out, `${JSON.stringify({ verified: this.verified, wrong: this.wrong, steps: this.steps })}\n`);
  }
}

/** Index of the first cell where m ≠ a + steps·b (float32, added one step at a time), or -1. */
export function firstMismatch(a: Float32Array, b: Float32Array, m: Float32Array, steps: number): number {
  if (m.length !== a.length || b.length !== a.length) return 0;
  for (let i = 0; i < a.length; i++) {
    let want = a[i]!;
    for (let s = 0; s < steps; s++) want = Math.fround(want + b[i]!);
    if (Math.abs(m[i]! - want) > 1e-5 * (Math.abs(want) + 1)) return i;
  }
  return -1;
}
