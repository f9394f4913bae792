/**
 * The worker's HeldAcks (topology-sdk/internal/held-acks.ts): a held ack is
 * computed when the bolt acks — per root of the tuple, the acker task, the
 * root's halves and the ack value's halves, as the bolt executor would send
 * them — and kept as five uint32 words in one growing typed array, so the tuple
 * itself can be collected young. Sent (or, for a rollback, turned into fails of
 * the same roots) when the stateful bolt's commit says so.
 */
import type { Tuple } from '../../topology-sdk/tuple.js';
import type { HeldAcks } from '../../topology-sdk/internal/held-acks.js';
import type { RuntimeTuple } from './runtime-tuple.js';
import { isTickTuple } from './tick-source.js';

/** Words per held root: acker task, root lo, root hi, value lo, value hi. */
const WORDS = 5;

/** What the bolt executor does with one root's ack or fail, and with the tuple counts. */
export interface HeldAckSink {
  ackerFor(rootLo: number): number | null;
  ackRoot(acker: number, lo: number, hi: number, valLo: number, valHi: number): void;
  failRoot(acker: number, lo: number, hi: number): void;
  /** Tuples whose acks (or fails) were just sent, for the executor's metrics. */
  counted(acked: number, failed: number): void;
}

export class CompactHeldAcks implements HeldAcks {
  private words = new Uint32Array(WORDS * 1024);
  private used = 0;
  private tuples = 0;
  private sealedWords = 0;
  private sealedTuples = 0;

  constructor(private readonly sink: HeldAckSink) {}

  get size(): number {
    return this.tuples;
  }

  hold(tuple: Tuple): void {
    const t = tuple as RuntimeTuple;
    if (isTickTuple(t)) return; // untracked, as the collector's ack treats it
    this.tuples++;
    const ids = t.anchors;
    if (!ids) return;
    for (let i = 0; i < ids.length; i += 4) {
      const acker = this.sink.ackerFor(ids[i]!);
      if (acker === null) continue;
      if (this.used + WORDS > this.words.length) this.grow();
      const w = this.words;
      const at = this.used;
      w[at] = acker;
      w[at + 1] = ids[i]!;
      w[at + 2] = ids[i + 1]!;
      // The tuple's edge XOR the edges of the tuples anchored to it, as of this ack.
      w[at + 3] = (ids[i + 2]! ^ t.ackLo) >>> 0;
      w[at + 4] = (ids[i + 3]! ^ t.ackHi) >>> 0;
      this.used += WORDS;
    }
  }

  seal(): void {
    this.sealedWords = this.used;
    this.sealedTuples = this.tuples;
  }

  ackSealed(): void {
    const w = this.words;
    for (let at = 0; at < this.sealedWords; at += WORDS) this.sink.ackRoot(w[at]!, w[at + 1]!, w[at + 2]!, w[at + 3]!, w[at + 4]!);
    this.sink.counted(this.sealedTuples, 0);
    w.copyWithin(0, this.sealedWords, this.used);
    this.used -= this.sealedWords;
    this.tuples -= this.sealedTuples;
    this.sealedWords = 0;
    this.sealedTuples = 0;
  }

  failAll(): void {
    const w = this.words;
    for (let at = 0; at < this.used; at += WORDS) this.sink.failRoot(w[at]!, w[at + 1]!, w[at + 2]!);
    this.sink.counted(0, this.tuples);
    this.used = 0;
    this.tuples = 0;
    this.sealedWords = 0;
    this.sealedTuples = 0;
  }

  private grow(): void {
    const next = new Uint32Array(this.words.length * 2);
    next.set(this.words.subarray(0, this.used));
    this.words = next;
  }
}
