/**
 * The open batch towards one peer worker, gathered in the frame's columns
 * (frame-layout.ts) as tuples are sent: destination, source, anchor count and
 * stream index in typed arrays, anchor ids as uint32 halves, the stream names
 * interned once per batch, the values arrays kept for one msgpack pack at
 * seal. Ack-protocol messages join the batch's run of the same destination,
 * source and kind — a bolt's 512 acks to one acker travel as one run of 2 048
 * words with no msgpack at all (ACK_FILL). The transport seals it by size or
 * time and encodes it (frame-encoder.ts).
 */
import { ackArity, type AckKind } from '../acking/ack-messages.js';
import type { AnchorIds } from '../executor/runtime-tuple.js';
import { UNTRACKED } from './frame-layout.js';
import { NO_TREE_START } from './frame-tree-time.js';

/** Ack messages of one kind from one task to one task, their words back to back (acking/ack-messages.ts). */
export interface AckRun {
  readonly dest: number;
  readonly src: number;
  readonly kind: AckKind;
  readonly words: number[];
}

/** Stream names a frame can index (a u16 column). */
const MAX_STREAMS = 0xffff;

/**
 * What one ack-protocol message fills of a batch, a tuple filling 1: a frame of acks alone seals at four times
 * `topology.transfer.batch.size` messages. An ack is 8 or 16 bytes of a fixed column, no msgpack, where a tuple is its
 * values packed; filling at one per message, ack frames sealed as often as data frames, and a frame costs its sender
 * and receiver far more than the acks in it (docs/benchmarks.md, "Acking, sixth round").
 */
export const ACK_FILL = 0.25;

export class BatchBuilder {
  /** Tuples in the batch, counting each message of an ack run (backpressure counts these). */
  count = 0;
  /** Data tuples, the rows of the columns below. */
  tuples = 0;
  dest = new Uint32Array(256);
  src = new Uint32Array(256);
  /** Anchor pairs per tuple; -1: untracked. */
  anchors = new Int32Array(256);
  stream = new Uint16Array(256);
  /** Anchor ids of every tuple in order, four words per pair. */
  ids = new Uint32Array(1024);
  idWords = 0;
  values: unknown[] = [];
  /**
   * The latest tree start of the tracked tuples (frame-tree-time.ts; the header's tree time): -1 while the batch holds
   * no tracked tuple, NO_TREE_START once it holds one whose start is unknown.
   */
  newestTreeStart = -1;
  /** Interned stream names, in index order. */
  readonly streams: string[] = [];
  private readonly streamIndex = new Map<string, number>();
  private lastStream = '';
  private lastIndex = -1;
  readonly runs: AckRun[] = [];
  /** Runs by kind, then by (dest, src) as dest × 2^21 + src: task ids are far below 2^21. */
  private readonly runIndex = new Map<number, Map<number, AckRun>>();
  private lastRun: AckRun | null = null;

  /**
   * Adds a data tuple (`values` in their wire form; `treeStart`: when the oldest spout tuple it descends from was
   * emitted, RuntimeTuple.treeStart); returns the fill after it.
   */
  addTuple(dest: number, src: number, stream: string, values: unknown[], anchors: AnchorIds, treeStart = NO_TREE_START): number {
    const t = this.tuples;
    if (t === this.dest.length) this.growTuples();
    this.dest[t] = dest;
    this.src[t] = src;
    this.stream[t] = stream === this.lastStream ? this.lastIndex : this.intern(stream);
    if (anchors === null) {
      this.anchors[t] = UNTRACKED;
    } else {
      const n = anchors.length;
      this.anchors[t] = n >> 2;
      if (treeStart > this.newestTreeStart) this.newestTreeStart = treeStart;
      if (this.idWords + n > this.ids.length) this.growIds(n);
      const ids = this.ids;
      let w = this.idWords;
      for (let i = 0; i < n; i++) ids[w++] = anchors[i]!;
      this.idWords = w;
    }
    this.values.push(values);
    this.tuples = t + 1;
    this.count++;
    return this.fill;
  }

  /** Adds one ack-protocol message (`valLo`/`valHi` only for kinds of four words); returns the fill after it. */
  addAck(dest: number, src: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): number {
    const r = this.runOf(dest, src, kind);
    if (ackArity(kind) === 4) r.words.push(rootLo, rootHi, valLo, valHi);
    else r.words.push(rootLo, rootHi);
    this.count++;
    return this.fill;
  }

  /** Adds a run of messages of one kind at once; returns the fill after them. */
  addAcks(dest: number, src: number, kind: AckKind, words: ArrayLike<number>): number {
    const into = this.runOf(dest, src, kind).words;
    for (let i = 0; i < words.length; i++) into.push(words[i]!);
    this.count += words.length / ackArity(kind);
    return this.fill;
  }

  /** How full the batch is, against the batch size: a tuple fills 1, an ack message ACK_FILL (sealing reads this). */
  get fill(): number {
    return this.tuples + (this.count - this.tuples) * ACK_FILL;
  }

  /** Whether a tuple on `stream` still fits the frame's stream index (a u16): when not, seal first. */
  hasRoomFor(stream: string): boolean {
    return this.streams.length < MAX_STREAMS || this.streamIndex.has(stream);
  }

  /** Empties the batch (after it was encoded), keeping its arrays for the next one. */
  clear(): void {
    this.count = 0;
    this.tuples = 0;
    this.idWords = 0;
    this.values = [];
    this.newestTreeStart = -1;
    this.streams.length = 0;
    this.streamIndex.clear();
    this.lastStream = '';
    this.lastIndex = -1;
    this.runs.length = 0;
    this.runIndex.clear();
    this.lastRun = null;
  }

  /**
   * The batch's tuples and runs shared out over two new batches, or null when it holds one tuple or one message: a
   * frame that is too big or does not encode is halved down to what does (zmq-transport.ts). A rare path: it copies.
   */
  halves(): [BatchBuilder, BatchBuilder] | null {
    const a = new BatchBuilder();
    const b = new BatchBuilder();
    const t = this.tuples;
    if (t >= 2 || (t === 1 && this.runs.length > 0)) {
      const half = t >> 1 || 1;
      let w = 0;
      for (let i = 0; i < t; i++) {
        const pairs = this.anchors[i]!;
        const ids = pairs < 0 ? null : Array.from(this.ids.subarray(w, w + 4 * pairs));
        w += pairs < 0 ? 0 : 4 * pairs;
        // Each tuple's own time is gone; the batch's is no earlier than any of them, so each half stays on the safe side.
        (i < half ? a : b).addTuple(this.dest[i]!, this.src[i]!, this.streams[this.stream[i]!]!, this.values[i] as unknown[], ids, this.newestTreeStart);
      }
      for (const r of this.runs) b.addAcks(r.dest, r.src, r.kind, r.words);
      return [a, b];
    }
    if (t === 1) return null;
    if (this.runs.length >= 2) {
      const half = this.runs.length >> 1;
      this.runs.forEach((r, i) => (i < half ? a : b).addAcks(r.dest, r.src, r.kind, r.words));
      return [a, b];
    }
    const r = this.runs[0];
    const arity = r ? ackArity(r.kind) : 0;
    if (!r || r.words.length <= arity) return null;
    const cut = (r.words.length / arity >> 1) * arity;
    a.addAcks(r.dest, r.src, r.kind, r.words.slice(0, cut));
    b.addAcks(r.dest, r.src, r.kind, r.words.slice(cut));
    return [a, b];
  }

  private intern(stream: string): number {
    let i = this.streamIndex.get(stream);
    if (i === undefined) {
      i = this.streams.length;
      this.streams.push(stream);
      this.streamIndex.set(stream, i);
    }
    this.lastStream = stream;
    this.lastIndex = i;
    return i;
  }

  private runOf(dest: number, src: number, kind: AckKind): AckRun {
    const last = this.lastRun;
    if (last !== null && last.dest === dest && last.src === src && last.kind === kind) return last;
    let ofKind = this.runIndex.get(kind);
    if (ofKind === undefined) this.runIndex.set(kind, (ofKind = new Map()));
    const route = dest * 2_097_152 + src;
    let r = ofKind.get(route);
    if (r === undefined) {
      r = { dest, src, kind, words: [] };
      ofKind.set(route, r);
      this.runs.push(r);
    }
    this.lastRun = r;
    return r;
  }

  private growTuples(): void {
    const n = this.dest.length * 2;
    this.dest = grown(this.dest, new Uint32Array(n));
    this.src = grown(this.src, new Uint32Array(n));
    this.anchors = grown(this.anchors, new Int32Array(n));
    this.stream = grown(this.stream, new Uint16Array(n));
  }

  private growIds(need: number): void {
    let n = this.ids.length * 2;
    while (n < this.idWords + need) n *= 2;
    this.ids = grown(this.ids, new Uint32Array(n));
  }
}

function grown<T extends Uint32Array | Int32Array | Uint16Array>(old: T, into: T): T {
  into.set(old);
  return into;
}
