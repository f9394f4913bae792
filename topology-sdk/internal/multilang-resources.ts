/**
 * Where a shell component's scripts live: the `resources/` directory next to
 * the topology module, as Storm keeps them under `resources/` in the topology
 * jar and starts the subprocess there.
 *
 * - Local mode loads the module where it is; a module compiled to `dist/`
 *   (tsc copies no .py or .js resources) finds them in its source twin
 *   (`dist/examples/x/` → `examples/x/resources/`).
 * - A module compiled for a local run into a temporary directory (a
 *   TypeScript module, a Flux file's generated module) registers the
 *   `resources/` directory of its source (common/resources-home.ts): the
 *   scripts stay where they are.
 * - Cluster mode runs an esbuild bundle; `hstorm submit` packs the
 *   `resources/` files into the bundle (cli/topology-bundle.ts registers them
 *   under BUNDLED_RESOURCES), and the first shell component of a worker
 *   writes them out next to the unpacked bundle.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOURCES_DIR, RESOURCES_HOME } from '../../common/resources-home.js';

/** globalThis key of the Map (bundle URL → files) a cluster bundle registers. */
export const BUNDLED_RESOURCES = Symbol.for('hstorm.bundledResources');

/** One packed file: its mode (execute bits survive, unlike in a Storm jar) and its bytes, base64. */
export interface BundledFile {
  mode: number;
  b64: string;
}

export { RESOURCES_DIR };

/** The resources directory of a topology module whose directory is `codeDir` (TopologyContext.codeDir). */
export function resourcesDirFor(codeDir: string): string {
  const bundled = bundledFilesFor(codeDir);
  const own = join(codeDir, RESOURCES_DIR);
  if (bundled) {
    materialize(own, bundled);
    return own;
  }
  const home = registered<string>(RESOURCES_HOME, codeDir);
  if (home) return home;
  if (isDir(own)) return own;
  const twin = sourceTwin(codeDir);
  if (twin && isDir(join(twin, RESOURCES_DIR))) return join(twin, RESOURCES_DIR);
  return own;
}

/** `…/dist/a/b` → `…/a/b` (the last `dist` segment dropped): where tsc's input for a compiled module lies. */
export function sourceTwin(dir: string): string | null {
  const parts = resolve(dir).split(sep);
  const i = parts.lastIndexOf('dist');
  if (i < 0) return null;
  return [...parts.slice(0, i), ...parts.slice(i + 1)].join(sep) || sep;
}

function isDir(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

/** What a module in `codeDir` registered under `key` (a Map from its import.meta.url). */
function registered<T>(key: symbol, codeDir: string): T | null {
  const registry = (globalThis as Record<symbol, unknown>)[key] as Map<string, T> | undefined;
  if (!registry) return null;
  for (const [url, value] of registry) {
    if (resolve(dirname(fileURLToPath(url))) === resolve(codeDir)) return value;
  }
  return null;
}

function bundledFilesFor(codeDir: string): Record<string, BundledFile> | null {
  return registered<Record<string, BundledFile>>(BUNDLED_RESOURCES, codeDir);
}

/** Writes the packed files under `dir`, leaving files that already hold the same bytes alone (several tasks share a worker). */
function materialize(dir: string, files: Record<string, BundledFile>): void {
  for (const [rel, f] of Object.entries(files)) {
    const target = resolve(dir, rel);
    if (!target.startsWith(resolve(dir) + sep)) throw new Error(`bundled resource "${rel}" points outside ${dir}`);
    const bytes = Buffer.from(f.b64, 'base64');
    if (existsSync(target) && readFileSync(target).equals(bytes)) continue;
    mkdirSync(dirname(target), { recursive: true });
    // Write then rename: workers of one topology on one node share the directory.
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes, { mode: f.mode });
    chmodSync(tmp, f.mode);
    renameSync(tmp, target);
  }
}
