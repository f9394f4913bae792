/** `hstorm rebalance NAME [-n WORKERS] [-e COMPONENT=N]… [-w SECS]`: re-place a topology's executors, optionally over a new number of workers or with new parallelism (Storm's -e). */
import type { Command } from 'commander';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { nonNegativeSecs, positiveInt } from './flag-values.js';
import { CliUsageError } from '../../common/errors.js';

export function registerRebalance(program: Command): void {
  addConfigOptions(
    program
      .command('rebalance <name>')
      .description('re-place a topology (after adding nodes, or to change topology.workers)')
      .option('-n, --num-workers <n>', 'new topology.workers')
      .option('-e, --executors <component=n>', "new parallelism of a component, as Storm's rebalance -e (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
      .option('-w, --wait <secs>', 'seconds the spouts stay deactivated before the new placement (default 0)')
      .option('--json', 'print JSON'),
  ).action(async (name: string, flags: ConfigFlags & { numWorkers?: string; wait?: string; json?: boolean; executors: string[] }) => {
    const executors = parseExecutors(flags.executors);
    const opts = {
      ...(Object.keys(executors).length > 0 && { executors }),
      ...(flags.numWorkers !== undefined && { workers: positiveInt('--num-workers', flags.numWorkers) }),
      ...(flags.wait !== undefined && { waitSecs: nonNegativeSecs('--wait', flags.wait) }),
    };
    const res = await NimbusClient.fromConfig(clientConfig(flags).config).rebalance(name, opts);
    process.stdout.write(flags.json ? `${JSON.stringify(res)}\n` : `topology ${res.name}: ${res.status}, ${res.workers} workers\n`);
  });
}

/** `-e split=4 -e count=2` → { split: 4, count: 2 }. */
export function parseExecutors(args: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const arg of args) {
    const eq = arg.lastIndexOf('=');
    if (eq <= 0) throw new CliUsageError(`invalid -e "${arg}": allowed: component=N`);
    out[arg.slice(0, eq)] = positiveInt(`-e ${arg.slice(0, eq)}`, arg.slice(eq + 1));
  }
  return out;
}
