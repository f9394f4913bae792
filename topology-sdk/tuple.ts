/**
 * A tuple as a bolt sees it: its values, read by position or by field name,
 * and where it came from. The ack bookkeeping (`anchors`) is the runtime's.
 */
import type { Fields } from './fields.js';

/**
 * Ack-tree ids this tuple carries: pairs of (root id, edge id) flattened as
 * [root0, edge0, root1, edge1, …]; null when the tuple is not tracked.
 */
export type AnchorIds = bigint[] | null;

export class Tuple {
  /** XOR of the edge ids of tuples anchored to this one (runtime bookkeeping). */
  ackVal = 0n;

  constructor(
    readonly values: readonly unknown[],
    readonly fields: Fields,
    readonly sourceComponent: string,
    readonly sourceStreamId: string,
    readonly sourceTask: number,
    readonly anchors: AnchorIds,
  ) {}

  get size(): number {
    return this.values.length;
  }

  getValue(i: number): unknown {
    return this.values[i];
  }

  /** Value of a field by name; throws for a field the stream does not declare. */
  getValueByField(name: string): unknown {
    const i = this.fields.indexOf(name);
    if (i < 0) {
      throw new Error(
        `field "${name}" is not declared on stream "${this.sourceStreamId}" of "${this.sourceComponent}" (fields: ${this.fields.names.join(', ')})`,
      );
    }
    return this.values[i];
  }

  getStringByField(name: string): string {
    return String(this.getValueByField(name));
  }

  getNumberByField(name: string): number {
    return Number(this.getValueByField(name));
  }

  contains(name: string): boolean {
    return this.fields.has(name);
  }

  /** Field name → value, for logging and tests. */
  toObject(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.fields.names.forEach((n, i) => (o[n] = this.values[i]));
    return o;
  }

  toString(): string {
    return `source: ${this.sourceComponent}:${this.sourceTask}, stream: ${this.sourceStreamId}, ${JSON.stringify(this.values, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
  }
}
