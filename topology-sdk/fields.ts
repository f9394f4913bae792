/** An ordered list of field names with O(1) lookup of a name's position. */
export class Fields {
  readonly names: readonly string[];
  private readonly index: ReadonlyMap<string, number>;

  constructor(names: readonly string[]) {
    this.names = Object.freeze([...names]);
    const index = new Map<string, number>();
    names.forEach((n, i) => index.set(n, i));
    this.index = index;
  }

  get size(): number {
    return this.names.length;
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  /** Position of `name`; -1 when absent. */
  indexOf(name: string): number {
    return this.index.get(name) ?? -1;
  }
}
