/**
 * Transport benchmark (DESIGN §11): in one run,
 *   (a) raw ZeroMQ + msgpackr PUSH/PULL between two Node processes, batched;
 *   (b) spout → bolt across two worker processes, no acking;
 *   (c) the same with acking;
 *   (d) (c) paced at half its throughput, for complete latency p50/p99.
 * Prints tuples/s, the ratios b/a and c/a, and the latency.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { runLocal } from '../cli/local-run.js';
import type { RunSummary } from '../cli/run-summary.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { cpuPerUnit, sampleChildCpu } from './support/child-cpu.js';

const here = dirname(fileURLToPath(import.meta.url));
const TOPOLOGY = join(here, 'topologies', 'spout-bolt.js');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function raw(seconds: number, batch: number): Promise<number> {
  const port = await freePort();
  const script = join(here, 'support', 'raw-zmq-peer.js');
  const pull = fork(script, ['pull', String(port), String(seconds)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  pull.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((r) => pull.once('message', () => r()));
  const push = fork(script, ['push', String(port), String(batch)], { stdio: 'inherit' });
  await new Promise<void>((r) => pull.once('exit', () => r()));
  push.kill('SIGKILL');
  const { tuples } = JSON.parse(out) as { tuples: number };
  return tuples / seconds;
}

/**
 * Steady-state bolt rate: executed tuples between the first beat after warm-up and the last; and the CPU µs
 * each worker process spent per tuple over the same window (busiest first; null off Linux).
 */
export async function topology(seconds: number, conf: Record<string, unknown>): Promise<{ rate: number; cpuUsPerTuple: number[] | null; summary: RunSummary }> {
  const samples: { t: number; n: number; cpu: Map<number, number> | null }[] = [];
  const summary = await runLocal({
    module: TOPOLOGY,
    name: 'transport-bench',
    durationSec: seconds + 2,
    overrides: { 'topology.transfer.batch.size': 128, ...conf },
    clusterConfig: { 'nimbus.scheduler': 'even' },
    onProgress: (s, t) => samples.push({ t, n: s.components.bolt?.executed ?? 0, cpu: sampleChildCpu() }),
    drainSec: 3,
  });
  const warm = samples.find((s) => s.t >= 2 && s.n > 0) ?? samples[0];
  const last = samples[samples.length - 1];
  const rate = warm && last && last.t > warm.t ? (last.n - warm.n) / (last.t - warm.t) : 0;
  const cpuUsPerTuple = warm && last ? cpuPerUnit(warm.cpu, last.cpu, last.n - warm.n) : null;
  return { rate, cpuUsPerTuple, summary };
}

export async function run(args: BenchArgs): Promise<void> {
  const seconds = args.quick ? 4 : 10;
  const bar = new BenchProgress('transport', 4, !args.json);
  bar.step('raw zeromq+msgpackr');
  const rawRate = await raw(seconds, 128);
  bar.step('topology, no acking');
  const unackedRun = await topology(seconds, { 'bench.acking': false });
  const unacked = unackedRun.rate;
  bar.step('topology, acking');
  const ackedRun = await topology(seconds, { 'bench.acking': true });
  const acked = ackedRun.rate;
  bar.step('topology, acking at half load');
  const half = await topology(seconds, { 'bench.acking': true, 'bench.rate': Math.max(1000, Math.round(acked / 2)) });
  bar.stop();
  const result = {
    raw: Math.round(rawRate),
    unacked: Math.round(unacked),
    acked: Math.round(acked),
    ratios: { unacked: round(unacked / rawRate), acked: round(acked / rawRate) },
    latencyMs: { p50: half.summary.completeLatencyMs.p50, p99: half.summary.completeLatencyMs.p99, atRatePerSec: Math.round(acked / 2) },
    // DESIGN §11's targets (issue 10): unacked ≥ 0.6 × raw, acked ≥ 0.25 × raw, p99 ≤ 10 ms at half the acked rate.
    targets: { unacked: 0.6, acked: 0.25, p99Ms: 10 },
    // CPU µs per tuple of each worker process, busiest first: steadier than tuples/s when the machine is shared.
    cpuUsPerTuple: { unacked: unackedRun.cpuUsPerTuple, acked: ackedRun.cpuUsPerTuple },
    loadavg: loadavg().map((x) => round(x)),
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  process.stdout.write(
    [
      `transport benchmark (${seconds} s per case, batch 128, 2 worker processes)`,
      `  (a) raw zeromq+msgpackr   ${result.raw.toLocaleString()} tuples/s`,
      `  (b) spout→bolt unacked    ${result.unacked.toLocaleString()} tuples/s   b/a = ${result.ratios.unacked} (target ≥ ${result.targets.unacked})`,
      `  (c) spout→bolt acked      ${result.acked.toLocaleString()} tuples/s   c/a = ${result.ratios.acked} (target ≥ ${result.targets.acked})`,
      `  CPU per tuple (µs per worker process, busiest first): unacked ${result.cpuUsPerTuple.unacked?.join(' / ') ?? '–'}, acked ${result.cpuUsPerTuple.acked?.join(' / ') ?? '–'}; load average ${result.loadavg.join(' / ')}`,
      `  (d) acked at ${result.latencyMs.atRatePerSec.toLocaleString()}/s: complete latency p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms (target p99 ≤ ${result.targets.p99Ms} ms)`,
    ].join('\n') + '\n',
  );
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
