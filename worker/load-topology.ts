/**
 * Loads a topology module (an ESM file whose default export is a built
 * topology or a function building one from the topology config) — the same
 * way in `submit`, `local` and every worker process.
 */
import { pathToFileURL } from 'node:url';
import { existsSync, statSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { StormTopology } from '../topology-sdk/topology-builder.js';
import type { TopologyModule } from '../topology-sdk/topology-module.js';
import type { TopologyDef } from '../common/topology-def.js';
import { HstormError, TopologyLoadError } from '../common/errors.js';
import { buildConfig, CONFIG_KEYS, secsToMs, type Config, type RawConfig } from '../common/config/index.js';

export interface LoadedTopology {
  topology: StormTopology;
  def: TopologyDef;
  modulePath: string;
}

/**
 * Resolves what a user typed (`examples/matmul`, `examples/matmul.ts`,
 * `dist/examples/matmul/index.js`) to a loadable JS file: TypeScript sources
 * of this package map to their compiled twins under dist/.
 */
export function resolveModulePath(input: string, packageRoot: string): string {
  const abs = resolve(input);
  const candidates: string[] = [];
  const add = (p: string) => {
    candidates.push(p, `${p}.js`, `${p}.mjs`, join(p, 'index.js'), join(p, 'index.mjs'));
  };
  const noTs = abs.replace(/\.ts$/, '');
  if (noTs.startsWith(packageRoot) && !noTs.startsWith(join(packageRoot, 'dist'))) {
    add(join(packageRoot, 'dist', noTs.slice(packageRoot.length)));
  }
  add(abs);
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile() && /\.(m?js)$/.test(c)) return c;
  }
  throw new TopologyLoadError(`cannot find a topology module at "${input}" (tried ${candidates.slice(0, 6).join(', ')}, …)`, input);
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
  return secsToMs(typeof v === 'number' && v > 0 ? v : (CONFIG_KEYS['topology.load.timeout.secs'].default as number));
}

export async function loadTopology(modulePath: string, config: Readonly<Record<string, unknown>>): Promise<LoadedTopology> {
  const timeoutMs = loadTimeoutMs(config);
  let mod: { default?: unknown };
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
  const probe = await loadTopology(modulePath, buildConfig([...base, overrides], opts));
  const topologyConfig = { ...probe.def.config, ...overrides };
  const config = buildConfig([...base, topologyConfig], opts);
  const loaded = await loadTopology(modulePath, config);
  return { ...loaded, topologyConfig, config };
}

/** A worker must build exactly the topology nimbus scheduled; a module that builds differently is an error. */
export function checkSameShape(expected: TopologyDef, actual: TopologyDef, modulePath: string): void {
  const shape = (d: TopologyDef) => JSON.stringify(d.components.map((c) => [c.id, c.kind, c.parallelism, c.streams, c.inputs]));
  if (shape(expected) !== shape(actual)) {
    throw new TopologyLoadError(`topology module ${modulePath} built a different topology than the one submitted (is it deterministic for the same config?)`, modulePath);
  }
}
