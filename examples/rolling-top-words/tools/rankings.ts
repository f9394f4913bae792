/**
 * storm-starter's Rankable, RankableObjectWithFields and Rankings: the top N objects by count. Rankings travel from
 * the intermediate rankers to the total ranker, usually in another worker: the topology registers both classes
 * (registerSerialization), so they arrive as Rankings — methods and all — and not as plain objects.
 */
import type { Tuple } from 'hstorm';

/** An object with a count (storm-starter's Rankable). */
export interface Rankable {
  getObject(): unknown;
  getCount(): number;
  compareTo(other: Rankable): number;
  copy(): Rankable;
}

export class RankableObjectWithFields implements Rankable {
  constructor(
    private readonly obj: unknown,
    private readonly count: number,
    private readonly fields: readonly unknown[] = [],
  ) {
    if (obj === null || obj === undefined) throw new RangeError('The object must not be null');
    if (count < 0) throw new RangeError('The count must be >= 0');
  }

  /** The object in the tuple's first value, its count in the second, the rest kept as fields. */
  static from(tuple: Tuple): RankableObjectWithFields {
    const [obj, , ...rest] = tuple.getValues();
    return new RankableObjectWithFields(obj, tuple.getLong(1), rest);
  }

  getObject(): unknown {
    return this.obj;
  }

  getCount(): number {
    return this.count;
  }

  getFields(): readonly unknown[] {
    return this.fields;
  }

  compareTo(other: Rankable): number {
    return Math.sign(this.count - other.getCount());
  }

  copy(): RankableObjectWithFields {
    return new RankableObjectWithFields(this.obj, this.count, [...this.fields]);
  }

  toString(): string {
    return `[${[String(this.obj), this.count, ...this.fields].join('|')}]`;
  }
}

export class Rankings {
  private rankedItems: Rankable[] = [];

  constructor(private readonly maxSizeN = 10) {
    if (maxSizeN < 1) throw new RangeError('topN must be >= 1');
  }

  maxSize(): number {
    return this.maxSizeN;
  }

  size(): number {
    return this.rankedItems.length;
  }

  /** A copy of the ranked items, highest count first. */
  getRankings(): Rankable[] {
    return this.rankedItems.map((r) => r.copy());
  }

  updateWith(other: Rankings | Rankable): void {
    if (other instanceof Rankings) {
      for (const r of other.getRankings()) this.updateWithRankable(r);
    } else {
      this.updateWithRankable(other);
    }
  }

  private updateWithRankable(r: Rankable): void {
    const rank = this.rankedItems.findIndex((cur) => cur.getObject() === r.getObject());
    if (rank >= 0) this.rankedItems[rank] = r;
    else this.rankedItems.push(r);
    // Storm sorts ascending then reverses: equal counts end up in reverse order of arrival, as here.
    this.rankedItems.sort((a, b) => a.compareTo(b)).reverse();
    if (this.rankedItems.length > this.maxSizeN) this.rankedItems.splice(this.maxSizeN, 1);
  }

  /** Removes the entries with a count of zero. */
  pruneZeroCounts(): void {
    this.rankedItems = this.rankedItems.filter((r) => r.getCount() !== 0);
  }

  copy(): Rankings {
    const c = new Rankings(this.maxSizeN);
    c.updateWith(this);
    return c;
  }

  toString(): string {
    return `[${this.rankedItems.map(String).join(', ')}]`;
  }
}
