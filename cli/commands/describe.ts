/** `hstorm describe NAME`: placement per worker, component metrics, reasons, unassigned executors. */
import type { Command } from 'commander';
import { formatDetail } from '../describe-format.js';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';

export function registerDescribe(program: Command): void {
  addConfigOptions(
    program.command('describe <name>').description('show where a topology runs, why, and how it is doing').option('--json', 'print JSON'),
  ).action(async (name: string, flags: ConfigFlags & { json?: boolean }) => {
    const detail = await NimbusClient.fromConfig(clientConfig(flags).config).describe(name);
    process.stdout.write(flags.json ? `${JSON.stringify(detail)}\n` : `${formatDetail(detail)}\n`);
  });
}
