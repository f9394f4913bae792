/**
 * Checks a connector's options with its zod schema when the component is
 * constructed — that is, when the topology is built (createTopology() calls
 * each factory to learn its streams) — and turns the first problem into a
 * ConnectorConfigError naming the option, the value and what is allowed, with
 * "did you mean" for a misspelt option.
 */
import { type z } from 'zod';
import { closestName } from '../../common/did-you-mean.js';
import { ConnectorConfigError } from './connector-errors.js';

export function parseOptions<S extends z.ZodType>(connector: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const option = path ? `${path}.${key}` : key;
    const known = knownKeys(schema, issue.path);
    const near = closestName(key, known);
    throw new ConnectorConfigError(
      connector,
      option,
      `unknown option${near ? `; did you mean "${near}"?` : ''} (allowed: ${known.join(', ')})`,
    );
  }
  const value = valueAt(input, issue.path);
  throw new ConnectorConfigError(connector, path || '(options)', `${issue.message}; got ${show(value)}`);
}

/** A value shown in an error: credentials never reach a message, so strings are shown only when short and harmless. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return /[:@]/.test(value) || value.length > 80 ? 'a string' : JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  try {
    const s = JSON.stringify(value);
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  } catch {
    return String(value);
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** The keys an object schema at `path` allows (for "did you mean" and the list of allowed options). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const defOf = (t: z.ZodType | undefined) => (t as unknown as { def?: { type?: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> } } | undefined)?.def ?? {};
  const unwrap = (t: z.ZodType | undefined): z.ZodType | undefined => {
    // Wrappers that only add a default or allow a missing value: the object inside says which keys there are.
    while (t && ['optional', 'default', 'prefault', 'nullable'].includes(defOf(t).type ?? '')) t = defOf(t).innerType;
    return t;
  };
  let s = unwrap(schema);
  for (const p of path) s = unwrap(defOf(s).shape?.[String(p)]);
  return Object.keys(defOf(s).shape ?? {});
}
