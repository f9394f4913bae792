/** `hstorm set-log-level <topology> LEVEL [--timeout s]`: every worker of the topology logs at LEVEL (Storm's set_log_level), for a while or until `reset`. */
import type { Command } from 'commander';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { positiveInt } from './flag-values.js';

export function registerSetLogLevel(program: Command): void {
  addConfigOptions(
    program
      .command('set-log-level <topology> <level>')
      .description("set the log level of every worker of a topology: trace, debug, info, warn, error, fatal, silent, or reset (Storm's set_log_level)")
      .option('-t, --timeout <secs>', 'go back to the workers\' own level after this many seconds (default: until reset)')
      .option('--json', 'print JSON'),
  ).action(async (name: string, level: string, flags: ConfigFlags & { timeout?: string; json?: boolean }) => {
    const timeout = flags.timeout === undefined ? undefined : positiveInt('--timeout', flags.timeout);
    const res = await NimbusClient.fromConfig(clientConfig(flags).config).setLogLevel(name, level, timeout);
    const what = res.logLevel ? `${res.logLevel.level}${res.logLevel.until ? ` until ${new Date(res.logLevel.until).toISOString()}` : ' until reset'}` : "the workers' own level";
    process.stdout.write(flags.json ? `${JSON.stringify(res)}\n` : `topology ${res.name}: workers log at ${what}\n`);
  });
}
