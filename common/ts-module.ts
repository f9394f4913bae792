/**
 * TypeScript topology modules: `hstorm local mytopo/index.ts` (and submit,
 * schedule) compile the module with esbuild — types stripped, its own imports
 * bundled in — into one ESM file with an inline source map, so a stack trace
 * from a worker points at the user's .ts lines. `hstorm` (and `hstorm/…`)
 * imports stay external and are pinned to this very package's files, so the
 * module and the runtime share one SDK (a module outside any project with
 * hstorm installed loads too).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';
import { TopologyLoadError } from './errors.js';
import { packageRoot } from './package-root.js';
import { RESOURCES_DIR, resourcesHomeBanner } from './resources-home.js';
import { makeTempDirSync } from './temp-dirs.js';

/** Extensions compiled before loading. */
export const TS_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx'];

export function isTypeScript(path: string): boolean {
  return TS_EXTENSIONS.some((e) => path.endsWith(e));
}

/** The SDK's public entry points, by the specifier a module imports them with. */
function sdkEntries(): Record<string, string> {
  const root = packageRoot();
  return {
    hstorm: join(root, 'dist', 'topology-sdk', 'index.js'),
    'hstorm/testing': join(root, 'dist', 'testing', 'index.js'),
  };
}

/** Resolves `hstorm` imports to this package's files (as file URLs, external); the SDK's own sources by relative path too. */
function sdkPinned(): Plugin {
  const entries = sdkEntries();
  const sdkDirs = [join(packageRoot(), 'dist', 'topology-sdk'), join(packageRoot(), 'topology-sdk')];
  return {
    name: 'hstorm-sdk-pinned',
    setup(b) {
      b.onResolve({ filter: /^hstorm(\/.*)?$/ }, (args) => {
        const file = entries[args.path];
        return file ? { path: pathToFileURL(file).href, external: true } : undefined;
      });
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = resolve(args.resolveDir, args.path);
        if (sdkDirs.some((d) => abs === join(d, 'index.js') || abs === join(d, 'index.ts') || abs === d)) return { path: pathToFileURL(entries.hstorm!).href, external: true };
        return undefined;
      });
    },
  };
}

/** What to compile: a module file, or generated source read as if it lay in `resolveDir` (the module of a Flux file). */
export type ModuleEntry = { path: string } | { contents: string; resolveDir: string; sourcefile: string };

export interface CompileOptions {
  /** The compiled file's name, `<name>.mjs`. */
  name: string;
  /** What is compiled, for messages ("TypeScript topology module …"). */
  what: string;
  /** The `resources/` directory of the source (multilang scripts), registered when the compiled module loads. */
  resourcesHome: string;
}

/** This process's directory of compiled modules, made at the first compile. */
let compiledDir: string | null = null;

/**
 * Compiles a module for a local run — its imports bundled in, `hstorm`
 * pinned to this package — to `<this process's temp dir>/<content hash>/<name>.mjs`
 * and returns that file's path. Compiled every time (esbuild takes
 * milliseconds; a cache keyed on the entry would miss edits to files it
 * imports); the content hash gives changed code a new URL, which Node's
 * module cache would otherwise hide. The directory is this process's
 * (common/temp-dirs.ts), removed when it exits: the workers of a local run
 * load the compiled file while the process that runs them lives, and nothing
 * is left behind in the temp dir after it.
 */
export async function compileModule(entry: ModuleEntry, opts: CompileOptions): Promise<string> {
  const id = 'path' in entry ? resolve(entry.path) : resolve(entry.resolveDir, entry.sourcefile);
  const dirOfSource = 'path' in entry ? dirname(id) : resolve(entry.resolveDir);
  const name = `${opts.name}.mjs`;
  // esbuild is loaded only here: workers running compiled modules never need it.
  const { build } = await import('esbuild');
  let code: Uint8Array;
  try {
    const result = await build({
      ...('path' in entry ? { entryPoints: [id] } : { stdin: { contents: entry.contents, resolveDir: entry.resolveDir, sourcefile: entry.sourcefile, loader: 'js' as const } }),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      // Source map paths are relative to the output file: name one beside the source so they read as the user's paths.
      outfile: join(dirOfSource, name),
      sourcemap: 'inline',
      // Node resolves a map's sources against sourceRoot: the source's own directory, wherever the compiled file lies.
      sourceRoot: `${pathToFileURL(dirOfSource).href}/`,
      // Classes and functions keep their names: esbuild turns a class that refers to itself into `var X = class _X`,
      // and a registered class travels under its name, which the CLI (the module as written) and the workers (this
      // bundle) must agree on — as must error messages naming the user's classes.
      keepNames: true,
      logLevel: 'silent',
      plugins: [sdkPinned()],
      banner: {
        js: `import { createRequire as __hstormCreateRequire } from 'node:module'; const require = __hstormCreateRequire(import.meta.url);${resourcesHomeBanner(opts.resourcesHome)}`,
      },
    });
    const file = result.outputFiles[0];
    if (!file) throw new Error('esbuild produced no output');
    code = file.contents;
  } catch (err) {
    throw new TopologyLoadError(`cannot compile ${opts.what} ${id}: ${(err as Error).message}`, id, { cause: err });
  }
  compiledDir ??= makeTempDirSync('hstorm-ts-');
  const dir = join(compiledDir, createHash('sha256').update(id).update(code).digest('hex').slice(0, 16));
  const out = join(dir, name);
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  // Write then rename: a worker (or a second CLI) never imports a half-written file.
  const partial = `${out}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, out);
  return out;
}

/** A TypeScript topology module, compiled for a local run (see compileModule). */
export async function compileTsModule(modulePath: string): Promise<string> {
  const abs = resolve(modulePath);
  return compileModule({ path: abs }, { name: basename(abs).replace(/\.[cm]?tsx?$/, ''), what: 'TypeScript topology module', resourcesHome: join(dirname(abs), RESOURCES_DIR) });
}

/**
 * Turns on source-mapped stack traces in this process (`--enable-source-maps`
 * without the flag), so errors from a compiled TypeScript module name the
 * user's file and line.
 */
export function enableSourceMaps(): void {
  const mod = createRequire(import.meta.url)('node:module') as { setSourceMapsSupport?: (on: boolean) => void };
  if (typeof mod.setSourceMapsSupport === 'function') mod.setSourceMapsSupport(true);
  else (process as { setSourceMapsEnabled?: (on: boolean) => void }).setSourceMapsEnabled?.(true);
}
