/**
 * Loads a topology module (an ESM file whose default export is a built
 * topology or a function building one from the topology config) — the same
 * way in `submit`, `local` and every worker process.
 */
import { pathToFileURL } from 'node:url';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { StormTopology } from '../topology-sdk/topology-builder.js';
import type { TopologyModule } from '../topology-sdk/topology-module.js';
import { withParallelism, type TopologyDef } from '../common/topology-def.js';
import { HstormError, TopologyLoadError } from '../common/errors.js';
import { buildConfig, CONFIG_KEYS, secsToMs, type Config, type RawConfig } from '../common/config/index.js';
import { compileTsModule, isTypeScript, TS_EXTENSIONS } from '../common/ts-module.js';
import { validateStateBounds, validateWindowBounds } from '../topology-sdk/validate-bounds.js';

export interface LoadedTopology {
  topology: StormTopology;
  def: TopologyDef;
  /** The file imported: the module itself, or for TypeScript its compiled twin (what a local run's workers load). */
  modulePath: string;
}

/** What a topology module may be written in: compiled JS, or TypeScript (compiled on load, common/ts-module.ts). */
const MODULE_EXTENSIONS = ['.js', '.mjs', ...TS_EXTENSIONS];

/**
 * Resolves what a user typed (`examples/matmul`, `mytopo/index.ts`, `wc`,
 * `dist/examples/matmul/index.js`) to a module file: the path itself, with
 * an extension added, or a directory's index. Sources of this package
 * (examples, fixtures) map to their compiled twins under dist/ first.
 * The error names exactly the paths that were looked at.
 */
export function resolveModulePath(input: string, packageRoot: string): string {
  const abs = resolve(input);
  const candidates: string[] = [];
  const add = (p: string) => {
    const bare = p.replace(/\.([cm]?tsx?|m?js)$/, '');
    if (bare !== p) candidates.push(p);
    else {
      for (const ext of MODULE_EXTENSIONS) candidates.push(`${p}${ext}`);
      for (const ext of MODULE_EXTENSIONS) candidates.push(join(p, `index${ext}`));
    }
  };
  const noExt = abs.replace(/\.([cm]?tsx?|m?js)$/, '');
  if (noExt.startsWith(packageRoot + sep) && !noExt.startsWith(join(packageRoot, 'dist') + sep)) {
    const twin = join(packageRoot, 'dist', noExt.slice(packageRoot.length));
    candidates.push(`${twin}.js`, join(twin, 'index.js'));
  }
  add(abs);
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    seen.add(c);
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  if (existsSync(abs) && statSync(abs).isFile()) {
    throw new TopologyLoadError(`"${input}" is not a topology module: allowed extensions ${MODULE_EXTENSIONS.join(', ')}`, input);
  }
  throw new TopologyLoadError(`cannot find a topology module at "${input}" (tried ${[...seen].join(', ')})`, input);
}

/**
 * Waits for a module's own promise (its top-level await, or the one its
 * default export returns) at most `timeoutMs`. A promise that never settles
 * would otherwise hang `submit` or, with nothing else keeping Node alive, end
 * the process with exit code 13 and no word about why.
 */
async function withinLoadTimeout<T>(what: string, p: Promise<T>, timeoutMs: number, modulePath: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TopologyLoadError(
            `topology module ${modulePath}: ${what} did not settle within ${timeoutMs / 1000} s (topology.load.timeout.secs); does it wait for something that never comes?`,
            modulePath,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function loadTimeoutMs(config: Readonly<Record<string, unknown>>): number {
  const v = config['topology.load.timeout.secs'];
  return secsToMs(typeof v === 'number' && v > 0 ? v : CONFIG_KEYS['topology.load.timeout.secs'].default);
}

/**
 * The name a topology gets when none is given: the module's file name, or
 * its directory's for an index file (`mytopo/index.ts` → `mytopo`,
 * `examples/word-count` → `word-count`), reduced to the characters names allow.
 */
export function defaultTopologyName(modulePath: string): string {
  const file = basename(modulePath).replace(/\.([cm]?tsx?|m?js)$/, '');
  const name = file === 'index' ? basename(dirname(modulePath)) : file;
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || 'topology';
}

export async function loadTopology(sourcePath: string, config: Readonly<Record<string, unknown>>): Promise<LoadedTopology> {
  const timeoutMs = loadTimeoutMs(config);
  let mod: { default?: unknown };
  // TypeScript is compiled first (cached); what gets imported — and what workers of a local run import — is the compiled file.
  const modulePath = isTypeScript(sourcePath) ? await compileTsModule(sourcePath) : sourcePath;
  try {
    mod = (await withinLoadTimeout('its top-level code', import(pathToFileURL(modulePath).href), timeoutMs, modulePath)) as { default?: unknown };
  } catch (err) {
    if (err instanceof TopologyLoadError) throw err;
    throw new TopologyLoadError(`topology module ${modulePath} failed to load: ${(err as Error)?.message ?? String(err)}`, modulePath, { cause: err });
  }
  const exported = mod.default as TopologyModule | undefined;
  let topology: unknown;
  try {
    topology = typeof exported === 'function' ? await withinLoadTimeout('the promise its default export returned', Promise.resolve(exported({ config })), timeoutMs, modulePath) : exported;
  } catch (err) {
    if (err instanceof HstormError) throw err;
    throw new TopologyLoadError(`topology module ${modulePath} threw while building the topology: ${(err as Error)?.message ?? String(err)}`, modulePath, { cause: err });
  }
  if (!(topology instanceof StormTopology)) {
    throw new TopologyLoadError(
      `topology module ${modulePath} must default-export a topology (TopologyBuilder.createTopology()) or a function returning one`,
      modulePath,
    );
  }
  // The module a worker loads to build it again: the one the user named (its source, for TypeScript).
  topology.origin = sourcePath;
  return { topology, def: topology.def, modulePath };
}

export interface ConfiguredTopology extends LoadedTopology {
  /** The module's own config with the overrides on top: what is submitted as topology config. */
  topologyConfig: RawConfig;
  /** Defaults < `base` < module config < overrides, validated: what workers will see. */
  config: Config;
}

/**
 * Loads a module the way `submit`, `local` and `schedule` must: once to learn
 * the config its createTopology sets, then again with the final config, so the
 * definition is exactly what every worker will build from that config.
 */
export async function loadConfiguredTopology(modulePath: string, overrides: RawConfig, base: RawConfig[] = []): Promise<ConfiguredTopology> {
  const opts = { allowUserKeys: true };
  // The probe's config lacks the module's own (`-c topology.gpu.workers=2` for a module that sets 3 workers is fine):
  // the bounds between keys are checked once the module's config is merged in, below.
  const probe = await loadTopology(modulePath, buildConfig([...base, overrides], { ...opts, crossKeys: false }));
  const topologyConfig = { ...probe.def.config, ...overrides };
  const config = buildConfig([...base, topologyConfig], opts);
  const loaded = await loadTopology(modulePath, config);
  // Windows against the final timeout and pending bound: what nimbus checks, refused here first with the same message.
  validateWindowBounds(loaded.def, config);
  validateStateBounds(loaded.def, config);
  return { ...loaded, topologyConfig, config };
}

/** A worker must build exactly the topology nimbus scheduled; a module that builds differently is an error. */
export function checkSameShape(expected: TopologyDef, built: TopologyDef, modulePath: string, parallelism: Readonly<Record<string, number>> = {}): void {
  // A rebalance may have changed some components' parallelism since the module's own.
  const actual = withParallelism(built, parallelism);
  const shape = (d: TopologyDef) => JSON.stringify([d.components.map((c) => [c.id, c.kind, c.parallelism, c.streams, c.inputs, c.window ?? null]), d.serializations ?? []]);
  if (shape(expected) !== shape(actual)) {
    throw new TopologyLoadError(`topology module ${modulePath} built a different topology than the one submitted (is it deterministic for the same config?)`, modulePath);
  }
}
