/**
 * Gathers each window's result from every covariance bolt, and once all have
 * sent it checks the kernels' float32 matrices against the float64 reference
 * (and that they flag the same anomaly), logs anomalies, and with
 * `covariance.output` appends one JSON line per window:
 * `{ key, n, anomaly, verified, wrong: [components that disagree] }`.
 */
import { appendFileSync } from 'node:fs';
import { BasicBolt, type Conf, type TopologyContext, type Tuple, type ComponentLogger } from 'hstorm';

/** Largest |kernel − reference| allowed, relative to the reference's largest entry (float32 sums of 64 rows). */
const TOLERANCE = 1e-3;

interface Result {
  n: number;
  cov: number[];
  anomaly: boolean;
}

export class CovarianceCheck extends BasicBolt {
  private output: string | null = null;
  private log!: ComponentLogger;
  private readonly pending = new Map<number, Map<string, Result>>();
  private verified = 0;

  constructor(
    /** The plain-JS bolt whose results are the reference. */
    private readonly reference: string,
    /** The kernel bolts checked against it. */
    private readonly kernels: readonly string[],
  ) {
    super();
  }

  override prepare(conf: Conf, ctx: TopologyContext): void {
    this.output = (conf['covariance.output'] as string | undefined) ?? null;
    this.log = ctx.log;
  }

  execute(t: Tuple): void {
    const key = t.getIntegerByField('key');
    let got = this.pending.get(key);
    if (!got) this.pending.set(key, (got = new Map()));
    got.set(t.getSourceComponent(), { n: t.getIntegerByField('n'), cov: t.getValueByField('cov') as number[], anomaly: t.getBooleanByField('anomaly') });
    if (got.size < this.kernels.length + 1) return;
    this.pending.delete(key);
    const ref = got.get(this.reference)!;
    const scale = Math.max(1, ...ref.cov.map(Math.abs));
    const wrong = this.kernels.filter((k) => {
      const r = got.get(k)!;
      return r.n !== ref.n || r.anomaly !== ref.anomaly || r.cov.some((v, i) => Math.abs(v - ref.cov[i]!) > TOLERANCE * scale);
    });
    if (wrong.length === 0) this.verified++;
    if (ref.anomaly) this.log.info({ window: key, readings: ref.n }, 'anomaly: a new reading stands out from its window');
    if (wrong.length > 0) this.log.warn({ window: key, wrong }, 'a kernel result differs from the reference');
    if (this.output) appendFileSync(this.output, `${JSON.stringify({ key, n: ref.n, anomaly: ref.anomaly, verified: wrong.length === 0, wrong })}\n`);
  }
}
