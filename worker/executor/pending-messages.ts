/**
 * A spout task's tuples in flight: root id → a slot whose message id, emit
 * time and stream sit in columns, so a tuple in flight costs a Map entry and
 * no object of its own. (A `{ messageId, emittedAt, stream }` object per tuple
 * lived as long as the tuple — max.spout.pending ÷ throughput — and at large
 * windows outlived young-generation collections, which copied and promoted it:
 * GC grew with the window. See worker/ack-tracker.ts for the acker's side.)
 * The Map keeps emit order, so expiry stops at the first young tuple.
 */
export interface Taken {
  messageId: unknown;
  emittedAt: number;
  stream: string;
}

export class PendingMessages {
  private readonly slotOf = new Map<bigint, number>();
  private readonly ids: unknown[] = [];
  private readonly streams: string[] = [];
  private emittedAt = new Float64Array(1024);
  private readonly free: number[] = [];
  private used = 0;
  /** Reused for every take: callers copy what they need before calling user code. */
  private readonly out: Taken = { messageId: undefined, emittedAt: 0, stream: '' };

  get size(): number {
    return this.slotOf.size;
  }

  add(root: bigint, messageId: unknown, stream: string, emittedAt: number): void {
    let s = this.free.pop();
    if (s === undefined) {
      s = this.used++;
      if (s === this.emittedAt.length) {
        const grown = new Float64Array(this.emittedAt.length * 2);
        grown.set(this.emittedAt);
        this.emittedAt = grown;
      }
    }
    this.ids[s] = messageId;
    this.streams[s] = stream;
    this.emittedAt[s] = emittedAt;
    this.slotOf.set(root, s);
  }

  /** Removes `root`; its message (in an object reused by the next take), or null when it is not in flight (timed out). */
  take(root: bigint): Taken | null {
    const s = this.slotOf.get(root);
    if (s === undefined) return null;
    this.slotOf.delete(root);
    const out = this.out;
    out.messageId = this.ids[s];
    out.emittedAt = this.emittedAt[s]!;
    out.stream = this.streams[s]!;
    this.ids[s] = undefined; // the user's message id is theirs to collect
    this.free.push(s);
    return out;
  }

  /** Removes every message emitted at or before `deadline`, oldest first, and hands each to `expired`. */
  expireBefore(deadline: number, expired: (messageId: unknown, emittedAt: number, stream: string) => void): void {
    for (const [root, s] of this.slotOf) {
      if (this.emittedAt[s]! > deadline) break; // emit order: the rest are younger
      const m = this.take(root)!;
      expired(m.messageId, m.emittedAt, m.stream);
    }
  }
}
