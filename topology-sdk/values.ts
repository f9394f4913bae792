/**
 * Storm's `Values`: `collector.emit(new Values(word, count))`, the habit of
 * every Storm example. It is an array of the values given — a plain array does
 * the same (`collector.emit([word, count])`), and every place that takes a
 * Values takes one. Unlike `new Array(3)`, `new Values(3)` holds the one
 * value 3; `map`, `filter` and `slice` of it give plain arrays.
 */
export class Values extends Array<unknown> {
  constructor(...values: unknown[]) {
    super();
    for (const v of values) this.push(v);
  }

  /** Arrays derived from a Values (map, filter, slice, concat) are plain arrays: `new Values(length)` is not an empty array of that length. */
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }
}
