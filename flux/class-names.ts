/**
 * What a `className` names. In hstorm a class lives in a JavaScript or
 * TypeScript module: `"<module>#<export>"`, the module a path relative to the
 * Flux file that names it (`./components.js#SplitBolt`) or a package
 * (`hstorm#ShellBolt`), the export omitted for the default one. Storm's own
 * Java names are taken where hstorm has an equivalent (runtime/storm-classes.ts),
 * refused with "not yet" where hstorm will have one (windows, state,
 * connectors), and otherwise refused naming what hstorm offers.
 *
 * Node's built-in modules (`node:child_process#default` with `factory:
 * execSync` runs a shell command) are refused unless the command that reads
 * the file allows each by name (`--flux-allow-builtin`): a Flux file wires
 * classes, and one handed over by someone else should not reach for the
 * process's own powers by a className.
 */
import { existsSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { packageRoot } from '../common/package-root.js';
import { FluxClassError, FluxNotYetError } from './errors.js';
import { STORM_CLASSES } from './runtime/storm-classes.js';
import type { BuiltinClassName, FluxPosition } from './runtime/plan.js';

export type ClassTarget = { kind: 'builtin'; name: BuiltinClassName } | { kind: 'module'; specifier: string; export: string };

const MODULE_EXT = /\.([cm]?[jt]s|tsx)$/;
const JAVA_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/;

/** Storm classes hstorm will run once their issue lands: the file is right, hstorm is not there yet. */
const NOT_YET: readonly [RegExp, string, string][] = [
  [
    /^org\.apache\.storm\.topology\.base\.BaseStatefulWindowedBolt\b/,
    'stateful windowed bolts',
    "Storm's BaseStatefulWindowedBolt is Java: in hstorm a stateful windowed bolt is a module's class extending StatefulWindowedBolt (\"./windows.js#SessionTotals\"), and the state provider is topology.state.provider: redis (docs/state.md)",
  ],
  [/^org\.apache\.storm\.(topology\.base\.BaseStatefulBolt|state\.)/, 'stateful bolts', "Storm's stateful bolt and state classes are Java: in hstorm a stateful bolt is a module's class extending StatefulBolt (\"./counter.js#WordCount\"), and the state provider is topology.state.provider: redis (docs/state.md)"],
  [
    /^(org\.apache\.storm\.(kafka|redis|rabbitmq|hdfs|hbase|hive|jdbc|jms|kinesis|cassandra|elasticsearch|mongodb|mqtt|solr|eventhubs|druid|opentsdb|pmml|sql)|io\.latent\.storm\.rabbitmq)\./,
    'connectors',
    'connectors (queue spouts, store bolts) are not yet in hstorm (DESIGN.md §13, Connectors: Redis Streams and RabbitMQ come first)',
  ],
];

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The file a relative module path names, tried as an import would be, with
 * TypeScript's habit of writing `./x.js` for `./x.ts`. A path inside this
 * package's sources (its examples) is taken from the compiled twin under
 * dist/ first, as `hstorm local examples/…` does: the code that runs is the
 * code tsc checked.
 */
function resolveModuleFile(spec: string, fromDir: string): { file: string | null; tried: string[] } {
  const abs = resolve(fromDir, spec);
  const bare = abs.replace(MODULE_EXT, '');
  const own: string[] = [];
  if (MODULE_EXT.test(abs)) own.push(abs);
  if (/\.[cm]?js$/.test(abs)) own.push(...['.ts', '.mts', '.cts'].map((e) => bare + e));
  if (!MODULE_EXT.test(abs)) own.push(...['.js', '.mjs', '.cjs', '.ts', '.mts'].map((e) => abs + e), join(abs, 'index.js'), join(abs, 'index.ts'));
  const root = packageRoot();
  const twin = bare.startsWith(root + sep) && !bare.startsWith(join(root, 'dist') + sep) ? [join(root, 'dist', bare.slice(root.length)) + '.js'] : [];
  const tried = [...twin, ...own];
  return { file: tried.find(isFile) ?? null, tried };
}

function javaClassError(className: string, at: FluxPosition, key: string): FluxClassError {
  const known = Object.keys(STORM_CLASSES).join(', ');
  return new FluxClassError(
    `"${className}" is a Java class hstorm does not know. hstorm runs JavaScript and TypeScript: name a module and its export, ` +
      `e.g. "./components.js#SplitBolt" (a path relative to this file, or a package: "hstorm#ShellBolt"); ` +
      `a bolt or spout in another language runs through the multilang wrappers (org.apache.storm.flux.wrappers.bolts.FluxShellBolt, …). ` +
      `Storm classes hstorm runs by name: ${known} (docs/flux.md)`,
    at,
    key,
    className,
  );
}

/** `fs` → `node:fs`: one name per built-in, as --flux-allow-builtin takes it. */
export function builtinName(spec: string): string {
  return spec.startsWith('node:') ? spec : `node:${spec}`;
}

/** Classifies a className written in the Flux file `fromFile` (absolute path) at `at`, the key `key`; `allowedBuiltins` are `node:` names. */
export function classTarget(className: string, fromFile: string, at: FluxPosition, key: string, allowedBuiltins: ReadonlySet<string> = new Set()): ClassTarget {
  const hash = className.lastIndexOf('#');
  const spec = hash >= 0 ? className.slice(0, hash) : className;
  const exported = hash >= 0 ? className.slice(hash + 1) : 'default';
  const relative = /^\.{1,2}\//.test(spec) || spec.startsWith('/');
  if (hash < 0 && !relative && !MODULE_EXT.test(spec)) {
    const builtin = STORM_CLASSES[className];
    if (builtin) return { kind: 'builtin', name: builtin };
    if (JAVA_NAME.test(className)) {
      const notYet = NOT_YET.find(([re]) => re.test(className));
      if (notYet) throw new FluxNotYetError(`"${className}": ${notYet[2]}`, at, key, notYet[1]);
      throw javaClassError(className, at, key);
    }
    throw new FluxClassError(`"${className}": name a module and its export, e.g. "./components.js#${className}" (a path relative to this file) or "hstorm#ShellBolt"`, at, key, className);
  }
  if (spec === '' || exported === '') throw new FluxClassError(`"${className}": expected "<module>#<export>", e.g. "./components.js#SplitBolt"`, at, key, className);
  if (!relative && isBuiltin(spec) && !allowedBuiltins.has(builtinName(spec))) {
    throw new FluxClassError(
      `"${className}": ${builtinName(spec)} is one of Node.js's built-in modules, which a Flux file may not name: they act with all the rights of whoever runs the file ` +
        `(child_process runs commands, fs writes files). If the file is yours and needs it, run with --flux-allow-builtin ${builtinName(spec)} (docs/flux.md, "What a Flux file can do")`,
      at,
      key,
      className,
    );
  }
  if (!relative) {
    // A package name; a file of that name beside the Flux file is the likelier meaning.
    if (existsSync(resolve(dirname(fromFile), spec))) {
      throw new FluxClassError(`"${className}": "${spec}" is read as a package name; for the file beside this one write "./${spec}#${exported}"`, at, key, className);
    }
    return { kind: 'module', specifier: spec, export: exported };
  }
  const { file, tried } = resolveModuleFile(spec, dirname(fromFile));
  if (!file) throw new FluxClassError(`"${className}": no module "${spec}" (tried ${tried.join(', ')})`, at, key, className);
  return { kind: 'module', specifier: file, export: exported };
}
