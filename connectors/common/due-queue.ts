/**
 * Keys ordered by the time they fall due: a binary min-heap, so that a burst
 * of failures (a sink that was down fails a whole window of tuples at once)
 * costs log n per message, not a sorted insert each.
 */
export class DueQueue<K> {
  private readonly heap: { at: number; key: K }[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(key: K, at: number): void {
    const h = this.heap;
    h.push({ at, key });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  /** The time the earliest key falls due, or null when empty. */
  peekAt(): number | null {
    return this.heap[0]?.at ?? null;
  }

  /** Removes and returns the earliest key if it is due at `now`. */
  popDue(now: number): K | undefined {
    const h = this.heap;
    const top = h[0];
    if (!top || top.at > now) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top.key;
  }

  clear(): void {
    this.heap.length = 0;
  }
}
