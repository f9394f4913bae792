/**
 * Flux's variables: `${name}` is filled from the `--filter` properties file,
 * `${ENV-NAME}` from the environment when `--env-filter` is given, and
 * `${name[i]}` with element i of a list value (`a.list: ["x", "y"]`), as
 * Storm's FluxParser fills them — but as values, not as text. Storm pastes
 * the values into the file before the YAML is read, so a value with a
 * newline and `key:` in it (an environment variable, a password) adds keys
 * to the file. Here each `${…}` is first marked with a placeholder YAML reads
 * as plain text anywhere; the file is parsed; then each scalar holding a
 * placeholder gets its value: a scalar that is a `${…}` alone and unquoted
 * takes the value's own YAML reading when the value is one line — a number,
 * true/false/null, a `[list]` or `{map}` (what Storm's text substitution
 * gives for those) — and otherwise, or inside a longer or quoted string, the
 * value is text. Nothing a value holds can reach the file's structure.
 *
 * Unlike Storm, a variable with no value is an error (Storm logs a warning
 * and leaves `${…}` in place, which fails later, far from the cause), and
 * every `${…}` of a line is filled, not only the last. A `${…}` in a comment
 * is never looked up. Where a value came from a variable, messages show the
 * `${…}` as written, never the value (secrets come in through variables).
 *
 * Marking changes column numbers on the lines it touches; `ColumnMap` maps a
 * column of the marked text back to the file as written, so errors point at
 * what the user sees.
 */
import { parse as parseYaml } from 'yaml';
import { closestName } from '../common/did-you-mean.js';
import { FluxSyntaxError, FluxVariableError } from './errors.js';

export interface Variables {
  /** From the --filter file; null when none was given. */
  properties: ReadonlyMap<string, string> | null;
  /** The --filter file, for messages. */
  propertiesFile: string | null;
  /** The environment, when --env-filter was given. */
  env: Readonly<Record<string, string | undefined>> | null;
  /** Every value filled in so far, as text, with the `${…}` it came from: what messages must not show (compile-flux.ts). */
  filled?: { text: string; written: string }[];
}

/** One marked `${…}`: its columns (0-based, end exclusive) in the marked line and in the line as written. */
interface Span {
  filledStart: number;
  filledEnd: number;
  start: number;
  end: number;
}

export class ColumnMap {
  constructor(private readonly spans: ReadonlyMap<number, readonly Span[]>) {}

  /** A 1-based column of the marked text → the column in the file as written (a column inside a placeholder → its `${`). */
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

/** A `${…}` of the file: its expression and where it is written (1-based). */
export interface VariableUse {
  expr: string;
  line: number;
  column: number;
}

export interface MarkedText {
  /** The file with each `${…}` replaced by a placeholder. */
  text: string;
  columns: ColumnMap;
  /** Placeholder i stands for uses[i]. */
  uses: VariableUse[];
}

const VARIABLE = /\$\{([^}]*)\}/g;
// Private-use characters: YAML reads them as plain text in block and flow context, in keys and values alike.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** Marks every `${…}` of `text` (the file `file`, for messages); whole-line comments are left as they are. */
export function markVariables(text: string, file: string): MarkedText {
  const at = text.search(/[\uE000\uE001]/);
  if (at >= 0) {
    const line = text.slice(0, at).split('\n').length;
    throw new FluxSyntaxError('the file holds the private-use character U+E000 or U+E001, which hstorm keeps for marking ${…} variables', { file, line, column: at - text.lastIndexOf('\n', at - 1) }, file);
  }
  const uses: VariableUse[] = [];
  const spans = new Map<number, Span[]>();
  const lines = text.split('\n').map((line, i) => {
    if (/^\s*#/.test(line) || !line.includes('${')) return line;
    const mine: Span[] = [];
    let out = '';
    let last = 0;
    for (const m of line.matchAll(VARIABLE)) {
      const mark = `${OPEN}${uses.length}${CLOSE}`;
      uses.push({ expr: m[1]!, line: i + 1, column: m.index + 1 });
      out += line.slice(last, m.index);
      mine.push({ filledStart: out.length, filledEnd: out.length + mark.length, start: m.index, end: m.index + m[0].length });
      out += mark;
      last = m.index + m[0].length;
    }
    spans.set(i + 1, mine);
    return out + line.slice(last);
  });
  return { text: lines.join('\n'), columns: new ColumnMap(spans), uses };
}

/** A variable's value: as text (inside a longer string) and as a value (a `${…}` alone). */
interface Looked {
  text: string;
  value: unknown;
}

/**
 * What a one-line value reads as on its own: a number, true/false/null, a `[list]` or `{map}` — what Storm's pasting
 * would give — else the text itself (a password with `#` or `: ` in it stays whole).
 */
function typedValue(raw: string, use: VariableUse, file: string): unknown {
  if (raw.includes('\n') || raw.includes('\r')) return raw;
  let v: unknown;
  try {
    v = parseYaml(raw, { maxAliasCount: 0 });
  } catch {
    if (/^\s*[[{]/.test(raw)) throw new FluxVariableError(`\${${use.expr}}: its value starts like a YAML list or map but is not one`, { file, line: use.line, column: use.column }, use.expr);
    return raw;
  }
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  if (typeof v === 'object' && /^\s*[[{]/.test(raw)) return v;
  return raw;
}

function listElement(name: string, raw: string, index: number, use: VariableUse, file: string): Looked {
  let list: unknown;
  try {
    list = parseYaml(raw, { maxAliasCount: 0 });
  } catch {
    list = null;
  }
  const at = { file, line: use.line, column: use.column };
  if (!Array.isArray(list)) {
    throw new FluxVariableError(`\${${name}[${index}]}: "${name}" is not a list; write its value as [a, b, …]`, at, name);
  }
  if (index >= list.length) {
    throw new FluxVariableError(`\${${name}[${index}]}: "${name}" has ${list.length} element(s), no index ${index}`, at, name);
  }
  const v: unknown = list[index];
  return { text: typeof v === 'string' ? v : JSON.stringify(v), value: v };
}

function lookup(use: VariableUse, vars: Variables, file: string): Looked {
  const { expr } = use;
  const at = { file, line: use.line, column: use.column };
  const env = /^ENV-(.+)$/.exec(expr);
  if (env) {
    const name = env[1]!;
    if (!vars.env) throw new FluxVariableError(`\${${expr}}: environment variables are filled only with --env-filter`, at, expr);
    const v = vars.env[name];
    if (v === undefined) throw new FluxVariableError(`\${${expr}}: environment variable ${name} is not set`, at, expr);
    return { text: v, value: typedValue(v, use, file) };
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
  return indexed ? listElement(name, raw, Number(indexed[2]), use, file) : { text: raw, value: typedValue(raw, use, file) };
}

export interface Filled {
  value: unknown;
  /** The scalar as written, `${…}` and all: what messages show instead of the value. */
  written: string;
}

/**
 * The value of a scalar of the parsed file that holds placeholders, or null when it holds none. `alone` is true for a
 * plain (unquoted) value scalar, the only kind a `${…}` alone may give a non-string value.
 */
export function fillScalar(s: string, alone: boolean, marked: MarkedText, vars: Variables, file: string): Filled | null {
  if (!s.includes(OPEN)) return null;
  const written = s.replace(PLACEHOLDER, (_, i: string) => `\${${marked.uses[Number(i)]!.expr}}`);
  const fill = (i: string): Looked => {
    const use = marked.uses[Number(i)]!;
    const got = lookup(use, vars, file);
    vars.filled?.push({ text: got.text, written: `\${${use.expr}}` });
    return got;
  };
  const whole = new RegExp(`^${OPEN}(\\d+)${CLOSE}$`).exec(s);
  if (whole && alone) return { value: fill(whole[1]!).value, written };
  return { value: s.replace(PLACEHOLDER, (_, i: string) => fill(i).text), written };
}
