/**
 * An ordered list of field names with O(1) lookup of a name's position — Storm's `Fields`. It is built the ways
 * Storm builds it, `new Fields('word', 'count')` or `new Fields(['word', 'count'])`, and every place that takes
 * field names (`declare`, `declareStream`, `fieldsGrouping`, `tuple.select`) takes a `Fields` or a plain array.
 */
import { TopologyValidationError } from '../common/errors.js';

export class Fields implements Iterable<string> {
  readonly names: readonly string[];
  private readonly index: ReadonlyMap<string, number>;

  constructor(...names: string[]);
  constructor(names: readonly string[] | Fields);
  constructor(...args: (string | readonly string[] | Fields)[]) {
    const names = fieldNames(args.length === 1 && typeof args[0] !== 'string' ? args[0]! : args, 'new Fields(…)');
    this.names = Object.freeze(names);
    const index = new Map<string, number>();
    names.forEach((n, i) => index.set(n, i));
    this.index = index;
  }

  /** How many fields (Storm's `size()`, a method as on Storm's Fields and on a Tuple). */
  size(): number {
    return this.names.length;
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  /** Storm's `contains`. */
  contains(name: string): boolean {
    return this.index.has(name);
  }

  /** Position of `name`; -1 when absent. */
  indexOf(name: string): number {
    return this.index.get(name) ?? -1;
  }

  /** Position of `name`; throws when absent (Storm's `fieldIndex`). */
  fieldIndex(name: string): number {
    const i = this.index.get(name);
    if (i === undefined) throw new RangeError(`field "${name}" does not exist (fields: ${this.names.join(', ')})`);
    return i;
  }

  /** The name at position `index` (Storm's `get`). */
  get(index: number): string {
    const name = this.names[index];
    if (name === undefined) throw new RangeError(`no field at index ${index} (${this.names.length} fields)`);
    return name;
  }

  /** The names as a new array (Storm's `toList`). */
  toList(): string[] {
    return [...this.names];
  }

  /** The values of the `selector` fields, in its order, from `values` laid out as these fields (Storm's `select`). */
  select(selector: Fields | readonly string[], values: readonly unknown[]): unknown[] {
    return fieldNames(selector, 'select').map((n) => values[this.fieldIndex(n)]);
  }

  [Symbol.iterator](): Iterator<string> {
    return this.names[Symbol.iterator]();
  }

  toString(): string {
    return `[${this.names.join(', ')}]`;
  }
}

/**
 * The names a `Fields` or an array of names holds, checked: every name a non-empty string. `where` names the call in
 * the error, so a Storm habit that does not fit (`new Fields(['a'])` given to a method that wants names) says where.
 */
export function fieldNames(fields: Fields | readonly string[] | readonly unknown[] | unknown, where: string): string[] {
  if (fields instanceof Fields) return [...fields.names];
  if (!Array.isArray(fields)) {
    throw new TopologyValidationError(`${where}: field names must be a Fields or an array of strings, got ${describe(fields)}`);
  }
  const bad = fields.findIndex((f) => typeof f !== 'string' || f.length === 0);
  if (bad >= 0) throw new TopologyValidationError(`${where}: field ${bad} must be a non-empty string, got ${describe(fields[bad])}`);
  return [...(fields as readonly string[])];
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing (undefined)';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return `an object (${(v as object).constructor?.name ?? 'Object'})`;
  return `${typeof v} ${JSON.stringify(v)}`;
}
