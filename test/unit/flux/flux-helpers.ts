/** Compiles a Flux file and builds its topology in this process, from the fixture modules it names (no esbuild, no workers). */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../../common/package-root.js';
import { compileFlux, type CompiledFlux, type FluxOptions } from '../../../flux/index.js';
import { buildFluxTopology } from '../../../flux/runtime/index.js';
import type { StormTopology } from '../../../topology-sdk/index.js';

export const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'flux');
export const STORM_FLUX = join(packageRoot(), 'third_party', 'apache-storm-flux');

export async function buildFlux(file: string, opts: FluxOptions = {}): Promise<{ compiled: CompiledFlux; topology: StormTopology }> {
  const compiled = compileFlux(file, opts);
  const modules = await Promise.all(compiled.modules.map((m) => import(m.startsWith('/') ? pathToFileURL(m).href : m) as Promise<Record<string, unknown>>));
  return { compiled, topology: buildFluxTopology(compiled.plan, modules) };
}

/** Runs `fn` and returns what it threw (failing when it does not throw). */
export async function thrown(fn: () => unknown): Promise<Error & { code?: string; key?: string; at?: { line: number; column: number } }> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, none was thrown');
}
