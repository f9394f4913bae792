/**
 * A FIFO ring buffer. "Bounded" is a policy of its users: `isFull` says when
 * producers must hold back (backpressure); `push` never drops, so a burst from
 * one emit call can overshoot the bound a little instead of losing tuples.
 */
export class BoundedQueue<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private len = 0;

  constructor(readonly capacity: number) {
    this.buf = new Array<T | undefined>(Math.max(16, capacity));
  }

  get length(): number {
    return this.len;
  }

  isFull(): boolean {
    return this.len >= this.capacity;
  }

  push(item: T): void {
    if (this.len === this.buf.length) this.grow();
    this.buf[(this.head + this.len) % this.buf.length] = item;
    this.len++;
  }

  shift(): T | undefined {
    if (this.len === 0) return undefined;
    const item = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.len--;
    return item;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.len; i++) next[i] = old[(this.head + i) % old.length];
    this.buf = next;
    this.head = 0;
  }
}
