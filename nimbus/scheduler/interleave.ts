/**
 * Storm's interleaved slot order, kept up to date incrementally: node1-slot1,
 * node2-slot1, …, node1-slot2, node2-slot2, … (nodes by id). Round r lists the
 * nodes that still have more than r free slots; a node only ever leaves rounds
 * (capacity shrinks during a call), so each round is a sorted array with a
 * "next alive" union-find over it. Taking the first k slots costs O(k + rounds)
 * amortized instead of rebuilding the order over all nodes for every topology.
 */

export interface InterleavedSlot {
  node: number;
  /** 0-based: this is the node's (round+1)-th free slot in the snapshot. */
  round: number;
}

export class Interleave {
  private readonly rounds: Int32Array[] = [];
  private readonly next: Int32Array[] = [];
  private readonly cap: Int32Array;

  /** caps[i] = free slots of node i (nodes in id order). */
  constructor(caps: ArrayLike<number>) {
    const n = caps.length;
    this.cap = new Int32Array(n);
    let maxCap = 0;
    for (let i = 0; i < n; i++) {
      const c = Math.max(0, caps[i] ?? 0);
      this.cap[i] = c;
      if (c > maxCap) maxCap = c;
    }
    const sizes = new Int32Array(maxCap);
    for (let i = 0; i < n; i++) for (let r = 0; r < this.cap[i]!; r++) sizes[r]!++;
    const fill = new Int32Array(maxCap);
    for (let r = 0; r < maxCap; r++) {
      this.rounds.push(new Int32Array(sizes[r]!));
      const nx = new Int32Array(sizes[r]! + 1);
      for (let p = 0; p < nx.length; p++) nx[p] = p;
      this.next.push(nx);
    }
    for (let i = 0; i < n; i++) {
      for (let r = 0; r < this.cap[i]!; r++) this.rounds[r]![fill[r]!++] = i;
    }
  }

  /** Lowers node's capacity (a slot of it was taken by anyone). */
  setCap(node: number, cap: number): void {
    const old = this.cap[node]!;
    const c = Math.max(0, cap);
    if (c >= old) return;
    for (let r = c; r < old; r++) {
      const members = this.rounds[r]!;
      const pos = lowerBound(members, node);
      this.next[r]![pos] = pos + 1;
    }
    this.cap[node] = c;
  }

  /** The first k slots in interleaved order, without taking them. */
  first(k: number): InterleavedSlot[] {
    const out: InterleavedSlot[] = [];
    for (let r = 0; r < this.rounds.length && out.length < k; r++) {
      const members = this.rounds[r]!;
      const nx = this.next[r]!;
      let p = find(nx, 0);
      while (p < members.length && out.length < k) {
        out.push({ node: members[p]!, round: r });
        p = find(nx, p + 1);
      }
    }
    return out;
  }
}

/** First alive position ≥ p (path halving keeps it near O(1) amortized). */
function find(nx: Int32Array, p: number): number {
  while (nx[p] !== p) {
    const up = nx[nx[p]!]!;
    nx[p] = up;
    p = up;
  }
  return p;
}

function lowerBound(a: Int32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
