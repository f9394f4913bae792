/**
 * Turns a topology module (or the module generated from a Flux file, bundled
 * as if it lay beside the YAML) into what `hstorm submit` uploads: one ESM file
 * (esbuild) with `hstorm` and Node's builtins left external — everything else
 * the module imports travels inside — gzipped, with its sha256. A module that
 * reaches the SDK by relative path (an example inside this repository) gets
 * that import rewritten to `hstorm` too, so the worker's SDK and the bundle's
 * are one and the same.
 *
 * Scripts of multilang components (ShellBolt / ShellSpout) travel inside the
 * same file: the `resources/` directory next to the module (Storm's
 * resources/ in the topology jar) is packed into the bundle's banner, which
 * registers it under BUNDLED_RESOURCES; the worker writes it out next to the
 * unpacked bundle (topology-sdk/internal/multilang-resources.ts), execute bits kept.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'esbuild';
import { TopologyLoadError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { BUNDLED_RESOURCES, RESOURCES_DIR, sourceTwin, type BundledFile } from '../topology-sdk/internal/multilang-resources.js';

/** Resources beyond this make the bundle too large to ship through nimbus's blob store comfortably. */
const MAX_RESOURCE_BYTES = 32 * 1024 * 1024;
/** Caches of the scripts' runtimes, never needed on the workers. */
const SKIPPED = new Set(['__pycache__', 'node_modules', '.git']);

export interface TopologyBundle {
  gz: Buffer;
  sha256: string;
  /** Size of the JavaScript before gzip. */
  rawBytes: number;
}

function sdkAsExternal(): Plugin {
  const sdkDirs = [join(packageRoot(), 'dist', 'topology-sdk'), join(packageRoot(), 'topology-sdk')];
  return {
    name: 'hstorm-sdk-external',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = resolve(args.resolveDir, args.path);
        if (sdkDirs.some((d) => abs === join(d, 'index.js') || abs === join(d, 'index.ts') || abs === d)) return { path: 'hstorm', external: true };
        return undefined;
      });
    },
  };
}

/** The files under the module's resources directory (or its source twin's, for a module compiled to dist/), by relative path. */
export function collectResources(modulePath: string): Record<string, BundledFile> {
  return collectResourcesIn(dirname(resolve(modulePath)));
}

/** The files under `codeDir`'s resources directory (or its source twin's), by relative path. */
export function collectResourcesIn(codeDir: string): Record<string, BundledFile> {
  const twin = sourceTwin(codeDir);
  const dir = [join(codeDir, RESOURCES_DIR), ...(twin ? [join(twin, RESOURCES_DIR)] : [])].find((d) => isDir(d));
  const files: Record<string, BundledFile> = {};
  if (!dir) return files;
  let total = 0;
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (SKIPPED.has(name)) continue;
      const p = join(d, name);
      const st = statSync(p); // follows symbolic links: a linked script travels as a file
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        total += st.size;
        if (total > MAX_RESOURCE_BYTES) throw new Error(`the resources in ${dir} exceed ${MAX_RESOURCE_BYTES / 1024 / 1024} MiB; ship large files another way`);
        files[relative(dir, p).split('\\').join('/')] = { mode: st.mode & 0o777, b64: readFileSync(p).toString('base64') };
      }
    }
  };
  walk(dir);
  return files;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Generated source bundled as if it lay in `resolveDir` (the module of a Flux file, whose scripts are in `resolveDir`/resources). */
export interface GeneratedEntry {
  contents: string;
  resolveDir: string;
  sourcefile: string;
}

export async function bundleTopology(entry: string | GeneratedEntry): Promise<TopologyBundle> {
  const modulePath = typeof entry === 'string' ? entry : join(entry.resolveDir, entry.sourcefile);
  let code: Uint8Array;
  try {
    const resources = collectResourcesIn(dirname(resolve(modulePath)));
    const registerResources =
      Object.keys(resources).length === 0
        ? ''
        : ` (globalThis[Symbol.for(${JSON.stringify(BUNDLED_RESOURCES.description)})] ??= new Map()).set(import.meta.url, ${JSON.stringify(resources)});`;
    // esbuild is loaded only here: `hstorm local` and the benchmarks import this file (through
    // topology-source.ts) but never bundle, and the GPU machine's bundle (scripts/device-bundle.sh) leaves esbuild out.
    const { build } = await import('esbuild');
    const out = await build({
      ...(typeof entry === 'string'
        ? { entryPoints: [resolve(entry)] }
        : { stdin: { contents: entry.contents, resolveDir: entry.resolveDir, sourcefile: entry.sourcefile, loader: 'js' as const } }),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      // Classes and functions keep their names: esbuild turns a class that refers to itself into `var X = class _X`,
      // and a registered class travels under its name, which the CLI (the module as written) and the workers (this
      // bundle) must agree on — as must error messages naming the user's classes.
      keepNames: true,
      logLevel: 'silent',
      external: ['hstorm', 'hstorm/*'],
      // Stack traces in the workers name the user's files and lines (workers enable source maps).
      sourcemap: 'inline',
      sourcesContent: false,
      plugins: [sdkAsExternal()],
      // CommonJS dependencies bundled into ESM still call require() for builtins.
      banner: { js: `import { createRequire as __hstormCreateRequire } from 'node:module'; const require = __hstormCreateRequire(import.meta.url);${registerResources}` },
    });
    const file = out.outputFiles[0];
    if (!file) throw new Error('esbuild produced no output');
    code = file.contents;
  } catch (err) {
    throw new TopologyLoadError(`cannot bundle ${modulePath}: ${(err as Error).message}`, modulePath, { cause: err });
  }
  const gz = gzipSync(code, { level: 9 });
  return { gz, sha256: createHash('sha256').update(gz).digest('hex'), rawBytes: code.length };
}
