/** The flags of Storm's Flux runner that `local`, `submit` and `schedule` take for a Flux file. */
import type { Command } from 'commander';
import type { FluxOptions } from '../../flux/index.js';
import type { TopologySource } from '../topology-source.js';

export interface FluxFlags {
  filter?: string;
  envFilter?: boolean;
}

export function addFluxOptions(cmd: Command): Command {
  return cmd
    .option('--filter <file>', 'Flux file: a properties file whose keys fill ${name} (and ${list[0]}) in the YAML')
    .option('--env-filter', 'Flux file: fill ${ENV-NAME} with environment variables');
}

export function fluxOptions(flags: FluxFlags): FluxOptions {
  return { ...(flags.filter !== undefined && { filter: flags.filter }), ...(flags.envFilter && { envFilter: true }) };
}

/** What includes with `override: false` left out: Storm logs it, the CLI says it on stderr. */
export function printFluxWarnings(source: TopologySource): void {
  for (const w of source.flux?.warnings ?? []) process.stderr.write(`hstorm: warning: ${w}\n`);
}
