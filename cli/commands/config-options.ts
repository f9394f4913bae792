/** The `--config FILE` and `-c key=value` options every command shares. */
import type { Command } from 'commander';
import { buildConfig, COMMAND_LINE, parseOverrides, readConfigFile, validateEntries, type Config } from '../../common/config/index.js';

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
  const where = flags.config ?? 'hstorm.yaml';
  // Each layer checked under its own name: a bad -c key is reported as from the command line, not from the file.
  const file = validateEntries(readConfigFile(where, flags.config !== undefined), { allowUserKeys: false, where });
  const overrides = validateEntries(parseOverrides(flags.conf), { allowUserKeys: false, where: COMMAND_LINE });
  return buildConfig([file, overrides], { allowUserKeys: false, where });
}
