/**
 * What CURVE costs (hstorm.messaging.curve, docs/security.md): the spout →
 * bolt topology of the transport benchmark across two worker processes, with
 * plain links and with CURVE links, unacked and acked, in one run. The cases
 * alternate (plain, CURVE, plain, CURVE) so a machine that speeds up or slows
 * down during the run affects both alike. Prints tuples/s and CURVE/plain.
 */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLocal } from '../cli/local-run.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';

const TOPOLOGY = join(dirname(fileURLToPath(import.meta.url)), 'topologies', 'spout-bolt.js');

/** Steady-state bolt rate: executed tuples between the first beat after warm-up and the last. */
async function rate(seconds: number, curve: boolean, acking: boolean): Promise<number> {
  const samples: { t: number; n: number }[] = [];
  await runLocal({
    module: TOPOLOGY,
    name: 'curve-bench',
    durationSec: seconds + 2,
    overrides: { 'topology.transfer.batch.size': 128, 'bench.acking': acking },
    clusterConfig: { 'nimbus.scheduler': 'even', 'hstorm.messaging.curve': curve },
    onProgress: (s, t) => samples.push({ t, n: s.components.bolt?.executed ?? 0 }),
    drainSec: 3,
  });
  const warm = samples.find((s) => s.t >= 2 && s.n > 0) ?? samples[0];
  const last = samples[samples.length - 1];
  return warm && last && last.t > warm.t ? (last.n - warm.n) / (last.t - warm.t) : 0;
}

export async function run(args: BenchArgs): Promise<void> {
  const seconds = args.quick ? 4 : 10;
  const bar = new BenchProgress('curve', 4, !args.json);
  const out: Record<string, { plain: number; curve: number; ratio: number }> = {};
  for (const acking of [false, true]) {
    const label = acking ? 'acked' : 'unacked';
    bar.step(`${label}, plain`);
    const plain = await rate(seconds, false, acking);
    bar.step(`${label}, CURVE`);
    const curve = await rate(seconds, true, acking);
    out[label] = { plain: Math.round(plain), curve: Math.round(curve), ratio: plain > 0 ? Math.round((curve / plain) * 1000) / 1000 : 0 };
  }
  bar.stop();
  if (args.json) {
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  process.stdout.write(
    [
      `CURVE benchmark (${seconds} s per case, batch 128, spout → bolt over 2 worker processes)`,
      ...Object.entries(out).map(
        ([k, v]) => `  ${k.padEnd(8)} plain ${v.plain.toLocaleString()} tuples/s   CURVE ${v.curve.toLocaleString()} tuples/s   CURVE/plain = ${v.ratio}`,
      ),
    ].join('\n') + '\n',
  );
}
