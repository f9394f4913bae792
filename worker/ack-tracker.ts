/**
 * Storm's acker algorithm, without sockets or queues: per spout tuple (root
 * id) the XOR of every edge id created and acked in its tuple tree. Each edge
 * id enters the XOR twice — once when the tuple is emitted (in the spout's
 * init or its parent's ack) and once when that tuple is acked — so the value
 * returns to zero exactly when every edge has been acked (a false zero needs
 * a 64-bit collision). When it is zero after the spout's init arrived, the
 * tree is complete; a fail anywhere in it fails the root.
 *
 * Entries live in two generations rotated every message timeout (Storm's
 * RotatingMap): a tree untouched for two rotations is forgotten, and its spout
 * times it out on its own.
 */

/** Called once per finished tree: `acked` false when a fail arrived. */
export type TreeDone = (root: bigint, spoutTask: number, acked: boolean) => void;

interface TreeState {
  val: bigint;
  /** Spout task; -1 until the init arrived (acks may overtake it). */
  spoutTask: number;
  failed: boolean;
}

export class AckTracker {
  private current = new Map<bigint, TreeState>();
  private previous = new Map<bigint, TreeState>();

  constructor(private readonly done: TreeDone) {}

  /** Trees being tracked. */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** The spout emitted `root` with first edges XORing to `xor`. */
  init(root: bigint, xor: bigint, spoutTask: number): void {
    const s = this.state(root);
    s.val ^= xor;
    s.spoutTask = spoutTask;
    this.check(root, s);
  }

  /** A tuple of the tree was acked: `val` is its edge XOR the edges of the tuples anchored to it. */
  ack(root: bigint, val: bigint): void {
    const s = this.state(root);
    s.val ^= val;
    this.check(root, s);
  }

  fail(root: bigint): void {
    const s = this.state(root);
    s.failed = true;
    this.check(root, s);
  }

  /** One message timeout passed: trees untouched since the previous rotation are dropped. */
  rotate(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  private state(root: bigint): TreeState {
    let s = this.current.get(root);
    if (s === undefined) {
      s = this.previous.get(root);
      if (s !== undefined) this.previous.delete(root);
      else s = { val: 0n, spoutTask: -1, failed: false };
      this.current.set(root, s);
    }
    return s;
  }

  private check(root: bigint, s: TreeState): void {
    if (s.spoutTask < 0 || (!s.failed && s.val !== 0n)) return;
    this.current.delete(root);
    this.done(root, s.spoutTask, !s.failed);
  }
}
