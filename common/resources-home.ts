/**
 * Where the scripts of a module compiled for a local run live. Such a module
 * (a TypeScript module, the module of a Flux file) is written to a temporary
 * directory, away from the `resources/` directory of its source; its first
 * lines register that directory under RESOURCES_HOME, keyed by the compiled
 * module's URL, and shell components look there
 * (topology-sdk/internal/multilang-resources.ts).
 */

/** The directory of a topology's scripts, beside its module or Flux file (Storm's resources/ in the topology jar). */
export const RESOURCES_DIR = 'resources';

/** globalThis key of the Map (compiled module URL → resources directory of its source). */
export const RESOURCES_HOME = Symbol.for('hstorm.resourcesHome');

/** Code a compiled module runs first so that its shell components find `dir`. */
export function resourcesHomeBanner(dir: string): string {
  return ` (globalThis[Symbol.for(${JSON.stringify(RESOURCES_HOME.description)})] ??= new Map()).set(import.meta.url, ${JSON.stringify(dir)});`;
}
