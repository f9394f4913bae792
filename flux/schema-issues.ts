/**
 * zod's verdict on a Flux file, in the reader's words: each issue becomes a
 * FluxInvalidError at the key or value it concerns, naming the key, what was
 * expected, and for a misspelt key or grouping type the one probably meant.
 */
import type { z } from 'zod';
import { closestName } from '../common/did-you-mean.js';
import { FluxInvalidError } from './errors.js';
import { pathText, type FluxSource, type YamlPath } from './flux-source.js';
import { formatPosition, type FluxPosition } from './runtime/plan.js';

interface Def {
  type?: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
}

function defOf(s: z.ZodType | undefined): Def {
  return ((s as unknown as { def?: Def } | undefined)?.def ?? {}) as Def;
}

/** The schema that checks the value at `path` (optional and default wrappers removed; a union answers with its first map). */
function schemaAt(root: z.ZodType, path: YamlPath): z.ZodType | undefined {
  let s: z.ZodType | undefined = root;
  const unwrap = () => {
    for (let d = defOf(s); d.type === 'optional' || d.type === 'default' || d.type === 'nullable'; d = defOf(s)) s = d.innerType;
    const d = defOf(s);
    if (d.type === 'union') s = d.options?.find((o) => defOf(o).type === 'object') ?? s;
  };
  unwrap();
  for (const seg of path) {
    const d = defOf(s);
    if (d.type === 'object' && typeof seg === 'string') s = d.shape?.[seg];
    else if (d.type === 'array') s = d.element;
    else if (d.type === 'record') s = d.valueType;
    else return undefined;
    unwrap();
  }
  return s;
}

function keysAt(root: z.ZodType, path: YamlPath): string[] {
  return Object.keys(defOf(schemaAt(root, path)).shape ?? {});
}

function expectedOf(root: z.ZodType, path: YamlPath, zodExpected: string): string {
  const s = schemaAt(root, path) as (z.ZodType & { isInt?: boolean; minValue?: number | null }) | undefined;
  const d = defOf(s);
  if (d.type === 'number') {
    const what = s?.isInt ? 'a whole number' : 'a number';
    return s?.minValue != null && s.minValue > Number.MIN_SAFE_INTEGER ? `${what} ≥ ${s.minValue}` : what;
  }
  if (d.type === 'union') return 'true, false or { memoryMB: <number> }';
  const words: Record<string, string> = { string: 'a string', number: 'a number', boolean: 'true or false', array: 'a list', object: 'a map', record: 'a map' };
  return words[d.type ?? zodExpected] ?? words[zodExpected] ?? zodExpected;
}

function valueAt(data: unknown, path: YamlPath): unknown {
  let v = data;
  for (const seg of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
  return v;
}

/** `bolts[1] ("split")` when the entry has an id, for messages about a key inside it. */
function entryText(src: FluxSource, data: unknown, path: YamlPath): string {
  const idx = path.findIndex((p, i) => i > 0 && typeof p === 'number' && ['components', 'spouts', 'bolts'].includes(String(path[i - 1])));
  const idPath = [...path.slice(0, idx + 1), 'id'];
  const id = idx > 0 ? valueAt(data, idPath) : undefined;
  if (typeof id !== 'string') return pathText(path);
  const written = src.written(idPath);
  return `${pathText(path)} (id ${written ?? `"${id}"`})`;
}

/** The value at `path` for a message: as written when a variable filled it (never what the variable held). */
function shownAt(src: FluxSource, data: unknown, path: YamlPath): string {
  return src.written(path) ?? shown(valueAt(data, path));
}

function shown(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list ${JSON.stringify(v).slice(0, 60)}`;
  if (typeof v === 'object') return 'a map';
  return JSON.stringify(v);
}

/** Matches grouping types loosely for "did you mean": case and underscores aside (`twoChoice` → `TWO_CHOICE`). */
function closestOption(value: string, options: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  const exact = options.find((o) => norm(o) === norm(value));
  return exact ?? closestName(value, options, 2);
}

/** One issue, said for the reader; `at` is where it is written. */
interface Problem {
  message: string;
  at: FluxPosition;
  key: string;
}

function problem(message: string, at: FluxPosition, key: string): Problem {
  return { message, at, key };
}

function explain(issue: z.core.$ZodIssue, root: z.ZodType, src: FluxSource, data: unknown): Problem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0]!;
      const allowed = keysAt(root, path);
      const hint = closestName(key, allowed);
      const where = path.length ? ` in ${entryText(src, data, path)}` : ' at the top level';
      return problem(
        `unknown key "${key}"${where}${hint ? `; did you mean "${hint}"?` : ''} (allowed: ${allowed.join(', ')})`,
        src.position([...path, key], { key: true }),
        pathText([...path, key]),
      );
    }
    case 'invalid_type': {
      const value = valueAt(data, path);
      const key = path[path.length - 1];
      const expected = expectedOf(root, path, issue.expected);
      if (value === undefined && typeof key === 'string') {
        return problem(`missing key "${key}" in ${entryText(src, data, path.slice(0, -1))}: expected ${expected}`, src.position(path), pathText(path));
      }
      return problem(`${entryText(src, data, path)}: expected ${expected}, got ${shownAt(src, data, path)}`, src.position(path), pathText(path));
    }
    case 'invalid_value': {
      const value = valueAt(data, path);
      const options = issue.values.map(String);
      const filled = src.written(path);
      const hint = typeof value === 'string' && filled === null ? closestOption(value, options) : undefined;
      return problem(
        `${entryText(src, data, path)}: ${filled ?? shown(value)} is not allowed; expected one of ${options.join(', ')}${hint ? `; did you mean "${hint}"?` : ''}`,
        src.position(path),
        pathText(path),
      );
    }
    case 'too_small': {
      const what = issue.origin === 'string' ? 'must not be empty' : `expected ${expectedOf(root, path, 'number')}, got ${shownAt(src, data, path)}`;
      return problem(`${entryText(src, data, path)}: ${what}`, src.position(path), pathText(path));
    }
    case 'invalid_union':
      return problem(`${entryText(src, data, path)}: expected ${expectedOf(root, path, 'union')}, got ${shownAt(src, data, path)}`, src.position(path), pathText(path));
    default:
      return problem(`${entryText(src, data, path)}: ${issue.message}`, src.position(path), pathText(path));
  }
}

/** Validates a file's data; a FluxInvalidError at the first issue in file order, the next few listed after it. */
export function parseFluxData<S extends z.ZodType>(schema: S, data: unknown, src: FluxSource): z.output<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => explain(i, schema, src, data));
  problems.sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
  const [first, ...rest] = problems as [Problem, ...Problem[]];
  const more = rest.slice(0, 5).map((p) => `\n  ${formatPosition(p.at)}: ${p.message}`).join('');
  const left = rest.length > 5 ? `\n  … and ${rest.length - 5} more` : '';
  throw new FluxInvalidError(`${first.message}${more}${left}`, first.at, first.key);
}
