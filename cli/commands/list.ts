/** `hstorm list`: the topologies on the cluster. */
import type { Command } from 'commander';
import { formatList } from '../describe-format.js';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';

export function registerList(program: Command): void {
  addConfigOptions(program.command('list').description('list the topologies on the cluster').option('--json', 'print JSON')).action(
    async (flags: ConfigFlags & { json?: boolean }) => {
      const rows = await NimbusClient.fromConfig(clientConfig(flags).config).topologies();
      process.stdout.write(flags.json ? `${JSON.stringify({ topologies: rows })}\n` : `${formatList(rows)}\n`);
    },
  );
}
