/**
 * The flags of Storm's Flux runner that `local`, `submit` and `schedule` take for a Flux file, and hstorm's two that
 * widen what a Flux file may do (docs/flux.md, "What a Flux file can do"): both name what they allow, one at a time.
 */
import { statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import type { Command } from 'commander';
import { CliUsageError } from '../../common/errors.js';
import type { FluxOptions } from '../../flux/index.js';
import type { TopologySource } from '../topology-source.js';

export interface FluxFlags {
  filter?: string;
  envFilter?: boolean;
  fluxAllowBuiltin?: string[];
  fluxIncludeDir?: string[];
}

const collect = (v: string, all: string[]): string[] => [...all, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

export function addFluxOptions(cmd: Command): Command {
  return cmd
    .option('--filter <file>', 'Flux file: a properties file whose keys fill ${name} (and ${list[0]}) in the YAML')
    .option('--env-filter', 'Flux file: fill ${ENV-NAME} with environment variables')
    .option('--flux-allow-builtin <module>', 'Flux file: let a className name this Node.js built-in module (node:fs, node:events, …; refused otherwise); repeatable', collect, [])
    .option('--flux-include-dir <dir>', "Flux file: let includes read files below this directory too (otherwise only below the Flux file's own); repeatable", collect, []);
}

/** `fs` and `node:fs` alike, each checked to be one of Node's built-in modules. */
function builtins(names: readonly string[]): string[] {
  return names.map((n) => {
    if (!isBuiltin(n)) throw new CliUsageError(`invalid --flux-allow-builtin "${n}": allowed: the name of a Node.js built-in module, e.g. node:events or node:fs (node -p "require('node:module').builtinModules" lists them)`);
    return n.startsWith('node:') ? n : `node:${n}`;
  });
}

function directories(dirs: readonly string[]): string[] {
  for (const d of dirs) {
    let isDir = false;
    try {
      isDir = statSync(d).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new CliUsageError(`invalid --flux-include-dir "${d}": allowed: an existing directory`);
  }
  return [...dirs];
}

export function fluxOptions(flags: FluxFlags): FluxOptions {
  const allow = builtins(flags.fluxAllowBuiltin ?? []);
  const dirs = directories(flags.fluxIncludeDir ?? []);
  return {
    ...(flags.filter !== undefined && { filter: flags.filter }),
    ...(flags.envFilter && { envFilter: true }),
    ...(allow.length > 0 && { allowBuiltinModules: allow }),
    ...(dirs.length > 0 && { includeDirs: dirs }),
  };
}

/** What includes with `override: false` left out: Storm logs it, the CLI says it on stderr. */
export function printFluxWarnings(source: TopologySource): void {
  for (const w of source.flux?.warnings ?? []) process.stderr.write(`hstorm: warning: ${w}\n`);
}
