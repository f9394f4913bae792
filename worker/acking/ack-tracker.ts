/**
 * Storm's acker algorithm with its ids as bigints (Storm's longs): the
 * AckTable (ack-table.ts) behind the face of `init(root, xor, spoutTask)`,
 * `ack(root, val)`, `fail(root)`. It is how tests and tools that hold ids as
 * BigInts drive the very table the acker runs — the acker itself calls the
 * table with halves, so no BigInt is made on its path (acker-executor.ts).
 */
import { AckTable } from './ack-table.js';
import { idOfHalves, writeHalvesOf } from './ack-ids.js';

/** Called once per finished tree: `acked` false when a fail arrived. */
export type TreeDone = (root: bigint, spoutTask: number, acked: boolean) => void;

export class AckTracker {
  private readonly table: AckTable;
  /** The halves of the message in hand: root low, root high, value low, value high. */
  private readonly h = [0, 0, 0, 0];

  constructor(done: TreeDone) {
    this.table = new AckTable((lo, hi, spoutTask, acked) => done(idOfHalves(lo, hi), spoutTask, acked));
  }

  /** Trees being tracked. */
  get size(): number {
    return this.table.size;
  }

  /** The spout emitted `root` with first edges XORing to `xor`. */
  init(root: bigint, xor: bigint, spoutTask: number): void {
    const h = this.split(root, xor);
    this.table.init(h[0]!, h[1]!, h[2]!, h[3]!, spoutTask);
  }

  /** A tuple of the tree was acked: `val` is its edge XOR the edges of the tuples anchored to it. */
  ack(root: bigint, val: bigint): void {
    const h = this.split(root, val);
    this.table.ack(h[0]!, h[1]!, h[2]!, h[3]!);
  }

  fail(root: bigint): void {
    const h = this.split(root, 0n);
    this.table.fail(h[0]!, h[1]!);
  }

  /** One message timeout passed (see AckTable.rotate). */
  rotate(): void {
    this.table.rotate();
  }

  private split(root: bigint, val: bigint): number[] {
    writeHalvesOf(root, this.h, 0);
    writeHalvesOf(val, this.h, 2);
    return this.h;
  }
}
