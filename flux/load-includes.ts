/**
 * A Flux file with its includes, merged as Storm's FluxParser merges them:
 * the including file's own definitions first, then each include in order —
 * `override: true` replaces the name, config keys and components, spouts and
 * bolts of the same id; `override: false` only adds what is missing (what it
 * skips is kept as a warning); streams are always appended. Unlike Storm,
 * included files may include others (Storm reads one level), a path is taken
 * from the including file's directory (Storm: the working directory), a
 * `resource: true` path from the top-level file's directory (Storm: the
 * classpath, whose root that directory stands for), and a file that includes
 * itself, directly or not, is an error naming the chain.
 *
 * An include reads only files below the top-level file's directory — its
 * real path, symlinks resolved, `resource: true` alike — unless the command
 * names more trees (`--flux-include-dir`): a Flux file handed over by
 * someone else must not be able to read `/etc/shadow` or `../../.env` into
 * an error message or a dry run. A file so included that turns out not to be
 * a Flux file is refused without a word of what it holds.
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FluxIncludeError, FluxReferenceError } from './errors.js';
import { displayPath, FluxSource, pathText, type YamlPath } from './flux-source.js';
import { formatPosition, type FluxPosition } from './runtime/plan.js';
import { parseFluxData } from './schema-issues.js';
import { FLUX_TOP_LEVEL_KEYS, fluxFileSchema, type ComponentDefinition, type StreamDefinition, type VertexDefinition } from './schema.js';
import type { Variables } from './substitution.js';

/** A definition with the file and path it was written at. */
export interface Located<T> {
  value: T;
  src: FluxSource;
  path: YamlPath;
}

export interface FluxTree {
  root: FluxSource;
  name: Located<string> | null;
  config: Map<string, Located<unknown>>;
  components: Map<string, Located<ComponentDefinition>>;
  spouts: Map<string, Located<VertexDefinition>>;
  bolts: Map<string, Located<VertexDefinition>>;
  streams: Located<StreamDefinition>[];
  /** Flux keys hstorm does not run (topologySource, workerHooks), refused by check-flux.ts. */
  unsupported: Located<string>[];
  /** What an include with `override: false` left out, as Storm logs it. */
  warnings: string[];
}

/** `file:line:column` of a located definition. */
function whereIs(d: Located<unknown>): string {
  return formatPosition(d.src.position(d.path));
}

function byId<T extends { id: string }>(list: readonly T[] | undefined, src: FluxSource, key: string): Map<string, Located<T>> {
  const out = new Map<string, Located<T>>();
  (list ?? []).forEach((value, i) => {
    const path = [key, i];
    const before = out.get(value.id);
    if (before) {
      const at = src.position([...path, 'id']);
      throw new FluxReferenceError(`${pathText([...path, 'id'])}: id "${value.id}" is declared twice in ${key} (first at line ${before.src.position([...before.path, 'id']).line})`, at, pathText([...path, 'id']), value.id);
    }
    out.set(value.id, { value, src, path });
  });
  return out;
}

/** Where includes may read from: real paths of directories. */
interface IncludeScope {
  /** The top-level file's directory (the `resource: true` base), as given. */
  root: string;
  /** Real paths of the trees includes may read: the top-level file's directory and each --flux-include-dir. */
  trees: readonly string[];
}

/** `p` with its symlinks resolved as far as it exists; a missing tail is kept as written. */
export function realPathOf(p: string): string {
  const tail: string[] = [];
  for (let head = p; ; head = dirname(head)) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      if (dirname(head) === head) return p;
      tail.unshift(basename(head));
    }
  }
}

function isWithin(p: string, tree: string): boolean {
  const rel = relative(tree, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A file read for `includes` must be a Flux file through and through before anything in it is quoted. */
function checkFluxShaped(src: FluxSource, data: unknown, inc: { file: string }, i: number, at: FluxPosition, chain: readonly string[]): void {
  const foreign = data !== null && typeof data === 'object' ? Object.keys(data).find((k) => !FLUX_TOP_LEVEL_KEYS.includes(k)) : undefined;
  if (foreign === undefined) return;
  throw new FluxIncludeError(
    `includes[${i}].file: "${inc.file}" is not a Flux file: the top-level key at ${formatPosition(src.position([foreign], { key: true }))} is none of Flux's (${FLUX_TOP_LEVEL_KEYS.join(', ')}); nothing of the file is shown`,
    at,
    `includes[${i}].file`,
    chain.map((p) => displayPath(p)),
  );
}

function readOne(path: string, vars: Variables, scope: IncludeScope, stack: readonly string[], included: { at: FluxPosition; inc: { file: string }; i: number } | null): FluxTree {
  const src = FluxSource.read(path, vars, { included: included !== null });
  const data = src.data();
  if (included) checkFluxShaped(src, data, included.inc, included.i, included.at, [...stack, path]);
  const file = parseFluxData(fluxFileSchema, data, src);
  const tree: FluxTree = {
    root: src,
    name: file.name !== undefined ? { value: file.name, src, path: ['name'] } : null,
    config: new Map(Object.entries(file.config ?? {}).map(([k, value]) => [k, { value, src, path: ['config', k] }])),
    components: byId(file.components, src, 'components'),
    spouts: byId(file.spouts, src, 'spouts'),
    bolts: byId(file.bolts, src, 'bolts'),
    streams: (file.streams ?? []).map((value, i) => ({ value, src, path: ['streams', i] })),
    unsupported: (['topologySource', 'workerHooks'] as const).filter((k) => file[k] !== undefined).map((k) => ({ value: k, src, path: [k] })),
    warnings: [],
  };
  (file.includes ?? []).forEach((inc, i) => {
    const at = src.position(['includes', i, 'file']);
    const target = inc.resource ? resolve(scope.root, inc.file.replace(/^\/+/, '')) : isAbsolute(inc.file) ? inc.file : resolve(dirname(src.path), inc.file);
    const chain = [...stack, src.path];
    // Confined before anything else is asked of the file: not even whether it exists is told for one outside.
    const real = realPathOf(target);
    if (!scope.trees.some((t) => isWithin(real, t))) {
      throw new FluxIncludeError(
        `includes[${i}].file: "${inc.file}" ${isWithin(target, scope.root) ? 'resolves (through a symlink) to a file' : 'is'} outside the directory of the top-level Flux file (${displayPath(scope.root)}), ` +
          'and an include reads only files below it; to allow another directory, run with --flux-include-dir <dir>',
        at,
        `includes[${i}].file`,
        chain.map((p) => displayPath(p)),
      );
    }
    if (chain.includes(target)) {
      const shown = [...chain.slice(chain.indexOf(target)), target].map((p) => displayPath(p));
      throw new FluxIncludeError(`includes[${i}].file: "${inc.file}" is already being included: a cycle of includes (${shown.join(' → ')})`, at, `includes[${i}].file`, shown);
    }
    if (!existsSync(target)) {
      throw new FluxIncludeError(
        `includes[${i}].file: "${inc.file}" not found (looked for ${target}${inc.resource ? ', a resource: from the top-level file\'s directory' : ''})`,
        at,
        `includes[${i}].file`,
        [...chain, target].map((p) => displayPath(p)),
      );
    }
    merge(tree, readOne(target, vars, scope, chain, { at, inc, i }), inc.override);
  });
  return tree;
}

function mergeById<T>(into: Map<string, Located<T>>, from: Map<string, Located<T>>, override: boolean, kind: string, warnings: string[]): void {
  for (const [id, def] of from) {
    if (into.has(id) && !override) {
      warnings.push(`${whereIs(def)}: ${kind} "${id}" of an include with override: false is ignored: "${id}" is already defined`);
      continue;
    }
    into.set(id, def);
  }
}

function merge(tree: FluxTree, inc: FluxTree, override: boolean): void {
  if (inc.name && (tree.name === null || override)) tree.name = inc.name;
  else if (inc.name) tree.warnings.push(`${whereIs(inc.name)}: name of an include with override: false is ignored`);
  mergeById(tree.config, inc.config, override, 'config key', tree.warnings);
  mergeById(tree.components, inc.components, override, 'component', tree.warnings);
  mergeById(tree.bolts, inc.bolts, override, 'bolt', tree.warnings);
  mergeById(tree.spouts, inc.spouts, override, 'spout', tree.warnings);
  tree.streams.push(...inc.streams);
  tree.unsupported.push(...inc.unsupported);
  tree.warnings.push(...inc.warnings);
}

/** Reads `path` and everything it includes; includes may read below its directory and below each of `includeDirs`. */
export function loadFluxTree(path: string, vars: Variables, includeDirs: readonly string[] = []): FluxTree {
  const root = dirname(resolve(path));
  const trees = [root, ...includeDirs].map((d) => realPathOf(resolve(d)));
  return readOne(resolve(path), vars, { root, trees }, [], null);
}
