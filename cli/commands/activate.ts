/** `hstorm activate NAME`: spouts start emitting again. */
import type { Command } from 'commander';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';

export function registerActivate(program: Command): void {
  addConfigOptions(program.command('activate <name>').description('activate a topology\'s spouts').option('--json', 'print JSON')).action(
    async (name: string, flags: ConfigFlags & { json?: boolean }) => {
      const res = await NimbusClient.fromConfig(clientConfig(flags).config).activate(name);
      process.stdout.write(flags.json ? `${JSON.stringify(res)}\n` : `topology ${res.name} is ${res.status}\n`);
    },
  );
}
