/** The `--config FILE` and `-c key=value` options every command shares. */
import type { Command } from 'commander';
import { buildConfig, parseOverrides, readConfigFile, validateEntries, type Config } from '../../common/config/index.js';

export interface ConfigFlags {
  config?: string;
  conf: string[];
}

export function addConfigOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'YAML config file (default: ./hstorm.yaml when present)')
    .option('-c, --conf <key=value>', 'override a config key (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[]);
}

/** Cluster config for a daemon or client: file + overrides, no user keys. */
export function loadClusterConfig(flags: ConfigFlags): Config {
  const file = readConfigFile(flags.config ?? 'hstorm.yaml', flags.config !== undefined);
  // Each source validated under its own name: a bad -c key is not reported as being in the file.
  const fromFile = validateEntries(file, { allowUserKeys: false, where: flags.config ?? 'hstorm.yaml' });
  const fromFlags = validateEntries(parseOverrides(flags.conf), { allowUserKeys: false, where: '-c' });
  return buildConfig([fromFile, fromFlags], { allowUserKeys: false });
}
