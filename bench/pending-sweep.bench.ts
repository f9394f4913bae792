/**
 * `topology.max.spout.pending` sweep: the transport benchmark's acked
 * spout → bolt pair across two worker processes, at pending 100, 1 000,
 * 4 000 and 10 000, run round-robin (every value once per round, `--rounds N`,
 * default 2; 1 with --quick) so a busy moment on a shared machine hits every
 * value alike; prints the median acked tuples/s and complete-latency p99 per
 * value, and the load average.
 *
 * What to expect (Little's law): in-flight = throughput × latency. Until the
 * window covers the pipeline's bandwidth-delay product, a larger window buys
 * throughput; beyond it, the extra tuples can only wait in queues, so latency
 * grows in proportion and throughput should stay flat. It fell before (1 000 →
 * 10 000: 515k → 318k/s) because those waiting tuples were not free — see
 * the closing note in docs/benchmarks.md.
 */
import { loadavg } from 'node:os';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { topology } from './transport.bench.js';

const PENDING = [100, 1000, 4000, 10000];

export async function run(args: BenchArgs): Promise<void> {
  const seconds = args.quick ? 4 : 8;
  const roundsArg = args.rest.indexOf('--rounds');
  const rounds = roundsArg >= 0 ? Math.max(1, Number(args.rest[roundsArg + 1]) || 1) : args.quick ? 1 : 2;
  const bar = new BenchProgress('pending-sweep', PENDING.length * rounds, !args.json);
  const load: number[] = [loadavg()[0]!];
  const results = new Map<number, { rate: number; p99: number; failed: number; cpu: number[] | null }[]>(PENDING.map((p) => [p, []]));
  for (let r = 0; r < rounds; r++) {
    for (const pending of PENDING) {
      bar.step(`pending ${pending}, round ${r + 1}`);
      const { rate, cpuUsPerTuple, summary } = await topology(seconds, { 'bench.acking': true, 'topology.max.spout.pending': pending });
      results.get(pending)!.push({ rate, p99: summary.completeLatencyMs.p99, failed: summary.failed, cpu: cpuUsPerTuple });
      load.push(loadavg()[0]!);
    }
  }
  bar.stop();
  const rows = PENDING.map((pending) => {
    const rs = results.get(pending)!;
    return {
      pending,
      ackedPerSec: Math.round(median(rs.map((x) => x.rate))),
      p99Ms: median(rs.map((x) => x.p99)),
      failed: rs.reduce((n, x) => n + x.failed, 0),
      // CPU µs per acked tuple of the busier worker (the spout's, with the acker): steadier than tuples/s on a shared machine.
      cpuUsPerTuple: rs.every((x) => x.cpu && x.cpu.length > 0) ? median(rs.map((x) => x.cpu![0]!)) : null,
      runs: rs.map((x) => Math.round(x.rate)),
    };
  });
  const result = { seconds, rounds, loadavg: { min: Math.min(...load), max: Math.max(...load) }, rows };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const lines = [
    `max.spout.pending sweep (acked spout→bolt, 2 worker processes, ${seconds} s per run, median of ${rounds} round(s); load average ${result.loadavg.min.toFixed(1)}–${result.loadavg.max.toFixed(1)})`,
    '  pending   acked tuples/s   p99 ms   failed   CPU µs/tuple (busier worker)   runs',
    ...rows.map(
      (r) =>
        `  ${String(r.pending).padStart(7)}   ${r.ackedPerSec.toLocaleString().padStart(14)}   ${r.p99Ms.toFixed(1).padStart(6)}   ${String(r.failed).padStart(6)}   ${(r.cpuUsPerTuple?.toFixed(2) ?? '–').padStart(28)}   ${r.runs.join(' / ')}`,
    ),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
