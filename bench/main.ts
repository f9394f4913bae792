/**
 * `npm run bench -- <name> [--quick] [--json]`: runs bench/<name>.bench.js.
 * Benchmarks compare against their baseline in the same run and print ratios;
 * they are not part of `npm test`. Every `*.bench.ts` here is registered by
 * being here (the usage line lists them): the paper's experiments (bolt-latency,
 * topology-throughput, hybrid-vs-single, alpha-sweep, beta-sweep, theta-sweep,
 * scheduler-vs-even), the runtime ones (transport, pending-sweep, word-count,
 * scheduler, gpu-bolt, node-collector, grouping), HDRF's (fairness: hetero in submission order vs hdrf on
 * a simulated cluster) and the cluster's (scale: one nimbus and one ZooKeeper from 100 to 4 000 workers).
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchArgs {
  quick: boolean;
  json: boolean;
  /** Anything after the name that is not a known flag. */
  rest: string[];
}

const here = dirname(fileURLToPath(import.meta.url));

function available(): string[] {
  return readdirSync(here)
    .filter((f) => f.endsWith('.bench.js'))
    .map((f) => f.replace(/\.bench\.js$/, ''))
    .sort();
}

async function main(argv: string[]): Promise<void> {
  const [name, ...flags] = argv;
  const names = available();
  if (!name || !names.includes(name)) {
    process.stderr.write(`usage: npm run bench -- <name> [--quick] [--json]\n  names: ${names.join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const args: BenchArgs = { quick: flags.includes('--quick'), json: flags.includes('--json'), rest: flags.filter((f) => f !== '--quick' && f !== '--json') };
  const mod = (await import(`./${name}.bench.js`)) as { run(a: BenchArgs): Promise<void> };
  await mod.run(args);
  // Dawn (WebGPU) keeps the event loop spinning until its device objects are garbage-collected,
  // even after the device is destroyed: a finished benchmark exits explicitly, once stdout is written.
  process.stdout.write('', () => process.exit());
}

await main(process.argv.slice(2));
