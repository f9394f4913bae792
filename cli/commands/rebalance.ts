/** `hstorm rebalance NAME [-n WORKERS] [-w SECS]`: re-place a topology's executors, optionally over a new number of workers. */
import type { Command } from 'commander';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { nonNegativeSecs, positiveInt } from './flag-values.js';

export function registerRebalance(program: Command): void {
  addConfigOptions(
    program
      .command('rebalance <name>')
      .description('re-place a topology (after adding nodes, or to change topology.workers)')
      .option('-n, --num-workers <n>', 'new topology.workers')
      .option('-w, --wait <secs>', 'seconds the spouts stay deactivated before the new placement (default 0)')
      .option('--json', 'print JSON'),
  ).action(async (name: string, flags: ConfigFlags & { numWorkers?: string; wait?: string; json?: boolean }) => {
    const opts = {
      ...(flags.numWorkers !== undefined && { workers: positiveInt('--num-workers', flags.numWorkers) }),
      ...(flags.wait !== undefined && { waitSecs: nonNegativeSecs('--wait', flags.wait) }),
    };
    const res = await NimbusClient.fromConfig(clientConfig(flags).config).rebalance(name, opts);
    process.stdout.write(flags.json ? `${JSON.stringify(res)}\n` : `topology ${res.name}: ${res.status}, ${res.workers} workers\n`);
  });
}
