/** `hstorm deactivate NAME`: spouts stop emitting; workers keep running. */
import type { Command } from 'commander';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';

export function registerDeactivate(program: Command): void {
  addConfigOptions(program.command('deactivate <name>').description('deactivate a topology\'s spouts').option('--json', 'print JSON')).action(
    async (name: string, flags: ConfigFlags & { json?: boolean }) => {
      const res = await NimbusClient.fromConfig(clientConfig(flags).config).deactivate(name);
      process.stdout.write(flags.json ? `${JSON.stringify(res)}\n` : `topology ${res.name} is ${res.status}\n`);
    },
  );
}
