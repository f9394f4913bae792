/**
 * What `hstorm local`, `submit` and `schedule` are given: a topology module,
 * or a Flux file (`.yaml`/`.yml`), which is compiled to a module first. Both
 * come out as a module path to load (loadConfiguredTopology, and the workers
 * of a local run), a default name, and the bundle `submit` uploads.
 */
import { basename } from 'node:path';
import { CliUsageError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { compileFlux, fluxModuleForLocalRun, isFluxFile, type CompiledFlux, type FluxOptions } from '../flux/index.js';
import { defaultTopologyName, resolveModulePath } from '../worker/index.js';
import { bundleTopology, type TopologyBundle } from './topology-bundle.js';

export interface TopologySource {
  /** What to load: the module, or the module compiled from the Flux file. */
  modulePath: string;
  /** The topology's name unless --name is given: the Flux file's `name`, else the file or directory name. */
  defaultName: string;
  /** The compiled Flux file; null for a module. */
  flux: CompiledFlux | null;
  /** What `submit` uploads. */
  bundle(): Promise<TopologyBundle>;
}

export async function openTopologySource(input: string, flux: FluxOptions = {}): Promise<TopologySource> {
  if (isFluxFile(input)) {
    const compiled = compileFlux(input, flux);
    return {
      modulePath: await fluxModuleForLocalRun(compiled),
      defaultName: compiled.name ?? defaultTopologyName(basename(compiled.file).replace(/\.ya?ml$/i, '.js')),
      flux: compiled,
      bundle: () => bundleTopology(compiled.entry),
    };
  }
  if (flux.filter !== undefined || flux.envFilter) {
    throw new CliUsageError(`--filter and --env-filter fill the variables of a Flux file (.yaml); "${input}" is a topology module, configured with -c key=value`);
  }
  if (flux.allowBuiltinModules !== undefined || flux.includeDirs !== undefined) {
    throw new CliUsageError(`--flux-allow-builtin and --flux-include-dir widen what a Flux file (.yaml) may do; "${input}" is a topology module, which may import what it likes`);
  }
  const modulePath = resolveModulePath(input, packageRoot());
  return { modulePath, defaultName: defaultTopologyName(modulePath), flux: null, bundle: () => bundleTopology(modulePath) };
}
