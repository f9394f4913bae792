/**
 * Flux's variables: `${name}` is filled from the `--filter` properties file,
 * `${ENV-NAME}` from the environment when `--env-filter` is given, and
 * `${name[i]}` with element i of a list value (`a.list: ["x", "y"]`), as
 * Storm's FluxParser does — textually, line by line, before the YAML is
 * parsed, so a list value becomes a YAML list. Unlike Storm, a variable with
 * no value is an error (Storm logs a warning and leaves `${…}` in place,
 * which fails later, far from the cause), and every `${…}` of a line is
 * filled, not only the last. Lines that are only a comment are left alone.
 *
 * Filling changes column numbers on the lines it touches; `ColumnMap` maps a
 * column of the filled text back to the file as written, so errors point at
 * what the user sees.
 */
import { parse as parseYaml } from 'yaml';
import { closestName } from '../common/did-you-mean.js';
import { FluxVariableError } from './errors.js';

export interface Variables {
  /** From the --filter file; null when none was given. */
  properties: ReadonlyMap<string, string> | null;
  /** The --filter file, for messages. */
  propertiesFile: string | null;
  /** The environment, when --env-filter was given. */
  env: Readonly<Record<string, string | undefined>> | null;
}

/** One filled `${…}`: its columns (0-based, end exclusive) in the filled line and in the line as written. */
interface Span {
  filledStart: number;
  filledEnd: number;
  start: number;
  end: number;
}

export class ColumnMap {
  constructor(private readonly spans: ReadonlyMap<number, readonly Span[]>) {}

  /** A 1-based column of the filled text → the column in the file as written (a column inside a filled value → its `${`). */
  original(line: number, column: number): number {
    const c = column - 1;
    let shift = 0;
    for (const s of this.spans.get(line) ?? []) {
      if (c < s.filledStart) break;
      if (c < s.filledEnd) return s.start + 1;
      shift = s.end - s.filledEnd;
    }
    return c + shift + 1;
  }
}

const VARIABLE = /\$\{([^}]*)\}/g;

function listElement(name: string, raw: string, index: number, file: string, line: number, column: number): string {
  let list: unknown;
  try {
    list = parseYaml(raw);
  } catch {
    list = null;
  }
  const at = { file, line, column };
  if (!Array.isArray(list)) {
    throw new FluxVariableError(`\${${name}[${index}]}: "${name}" is not a list (its value is ${JSON.stringify(raw)}); write it as [a, b, …]`, at, name);
  }
  if (index >= list.length) {
    throw new FluxVariableError(`\${${name}[${index}]}: "${name}" has ${list.length} element(s), no index ${index}`, at, name);
  }
  const v: unknown = list[index];
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function lookup(expr: string, vars: Variables, file: string, line: number, column: number): string {
  const at = { file, line, column };
  const env = /^ENV-(.+)$/.exec(expr);
  if (env) {
    const name = env[1]!;
    if (!vars.env) throw new FluxVariableError(`\${${expr}}: environment variables are filled only with --env-filter`, at, expr);
    const v = vars.env[name];
    if (v === undefined) throw new FluxVariableError(`\${${expr}}: environment variable ${name} is not set`, at, expr);
    return v;
  }
  const indexed = /^(.+)\[(\d+)\]$/.exec(expr);
  const name = indexed ? indexed[1]! : expr;
  const props = vars.properties;
  if (!props) throw new FluxVariableError(`\${${expr}} is not set: no --filter file was given (a properties file with ${name}=…)`, at, name);
  const raw = props.get(name);
  if (raw === undefined) {
    const hint = closestName(name, props.keys());
    throw new FluxVariableError(`\${${expr}} is not set: ${vars.propertiesFile} has no "${name}"${hint ? `; did you mean "${hint}"?` : ''}`, at, name);
  }
  return indexed ? listElement(name, raw, Number(indexed[2]), file, line, column) : raw;
}

/** Fills every `${…}` of `text` (the file `file`, for messages); returns the filled text and its column map. */
export function substitute(text: string, vars: Variables, file: string): { text: string; columns: ColumnMap } {
  const spans = new Map<number, Span[]>();
  const lines = text.split('\n').map((line, i) => {
    if (/^\s*#/.test(line) || !line.includes('${')) return line;
    const mine: Span[] = [];
    let out = '';
    let last = 0;
    for (const m of line.matchAll(VARIABLE)) {
      const value = lookup(m[1]!, vars, file, i + 1, m.index + 1);
      out += line.slice(last, m.index);
      mine.push({ filledStart: out.length, filledEnd: out.length + value.length, start: m.index, end: m.index + m[0].length });
      out += value;
      last = m.index + m[0].length;
    }
    spans.set(i + 1, mine);
    return out + line.slice(last);
  });
  return { text: lines.join('\n'), columns: new ColumnMap(spans) };
}
