/**
 * The acker task: feeds the ack protocol's messages (ack-messages.ts) into an
 * AckTable (Storm's XOR algorithm, ack-table.ts) and tells the spout task of
 * each finished tree `ack` or `fail`. Only the kinds an acker takes are
 * queued (`acceptsAcks`); the frame's reader has counted their words, and any
 * uint32 is a well-formed half, so nothing forged can throw inside the table.
 *
 * Inside one worker the protocol's messages need no frame: a spout or bolt in
 * the same process calls `initLocal` / `ackLocal` / `failLocal` (found through
 * ExecutorHost.localAcker), and the replies to a spout in this process are
 * gathered and handed over as one run per pass of the acker. The algorithm is
 * the same — only the envelope is gone (see the numbers in docs/benchmarks.md).
 * Ids stay uint32 halves all the way: no BigInt per message or tree.
 */
import { Executor } from '../executor/executor.js';
import type { ExecutorHost, LocalAcker } from '../executor/executor-host.js';
import type { ComponentSettings } from '../worker-settings.js';
import { ACK, ACKED, FAILED, INIT, RESET, isAckerKind, type AckKind, type AckMessages } from './ack-messages.js';
import { ACKER_COMPONENT } from '../../common/topology-def.js';
import { AckTable } from './ack-table.js';

/** Roots gathered as halves in a growable uint32 array: two stores per root, one copy per flush. */
class RootList {
  words = new Uint32Array(512);
  length = 0;

  push(lo: number, hi: number): void {
    if (this.length + 2 > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words[this.length++] = lo;
    this.words[this.length++] = hi;
  }

  /** The roots gathered (a copy: the list is reused), and the list emptied. */
  take(): Uint32Array {
    const out = this.words.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

/** Replies gathered for one spout task in this process. */
interface LocalReplies {
  readonly spoutTask: number;
  readonly acked: RootList;
  readonly failed: RootList;
}

export class AckerExecutor extends Executor implements LocalAcker {
  private readonly tracker = new AckTable((lo, hi, spoutTask, acked) => this.reply(lo, hi, spoutTask, acked));
  private rotateTimer: NodeJS.Timeout | null = null;
  /** By spout task (task ids are small): whether it runs in this process, resolved on its first reply. */
  private readonly spoutIsLocal: (boolean | undefined)[] = [];
  /** By spout task: replies for a spout in this process, flushed at the end of each run (one run of messages per spout per run, not one per tree). */
  private readonly localReplies: (LocalReplies | undefined)[] = [];
  /** The same, in the order the spouts first got a reply, for the flush. */
  private readonly replyOrder: LocalReplies[] = [];
  private repliesWaiting = false;

  constructor(host: ExecutorHost, task: number, settings: ComponentSettings) {
    super(host, ACKER_COMPONENT, task, settings);
  }

  get pendingTrees(): number {
    return this.tracker.size;
  }

  async start(): Promise<void> {
    // Two generations rotated every timeout: an entry lives between one and two timeouts (Storm's RotatingMap).
    this.rotateTimer = setInterval(() => this.tracker.rotate(), this.settings.messageTimeoutMs);
    this.rotateTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.rotateTimer) clearInterval(this.rotateTimer);
    this.flushReplies();
  }

  override readonly takesTuples = false;

  override acceptsAcks(kind: AckKind): boolean {
    return isAckerKind(kind);
  }

  ready(): boolean {
    return this.repliesWaiting || this.ackQueue.length > 0;
  }

  runSlice(deadline: number): void {
    let m: AckMessages | undefined;
    while ((m = this.ackQueue.shift())) {
      const started = this.metrics.sampleExecute() ? performance.now() : -1;
      const messages = this.process(m);
      this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
      this.metrics.executed += messages - 1; // a run counts as the messages it carries
      if (performance.now() >= deadline) break;
    }
    this.flushReplies();
  }

  /** One run of messages (a kind acceptsAcks took); returns how many it held. */
  process(m: AckMessages): number {
    const w = m.words;
    const n = w.length;
    if (m.kind === ACK) {
      for (let i = 0; i < n; i += 4) this.tracker.ack(w[i]!, w[i + 1]!, w[i + 2]!, w[i + 3]!);
      return n / 4;
    }
    if (m.kind === INIT) {
      for (let i = 0; i < n; i += 4) this.tracker.init(w[i]!, w[i + 1]!, w[i + 2]!, w[i + 3]!, m.src);
      return n / 4;
    }
    if (m.kind === RESET) {
      for (let i = 0; i < n; i += 2) this.reset(w[i]!, w[i + 1]!);
      return n / 2;
    }
    for (let i = 0; i < n; i += 2) this.tracker.fail(w[i]!, w[i + 1]!);
    return n / 2;
  }

  // The in-process calls below run on their caller's time, so each is timed like a tuple's execute (one in
  // SAMPLE_EVERY): the acker's capacity then counts the work it does for the spouts and bolts beside it.

  /** INIT from a spout task in this process (its values are the runtime's own, not read off a socket). */
  initLocal(rootLo: number, rootHi: number, xorLo: number, xorHi: number, spoutTask: number): void {
    const started = this.metrics.sampleExecute() ? performance.now() : -1;
    this.tracker.init(rootLo, rootHi, xorLo, xorHi, spoutTask);
    this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
  }

  /** ACK from a bolt task in this process. */
  ackLocal(rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    const started = this.metrics.sampleExecute() ? performance.now() : -1;
    this.tracker.ack(rootLo, rootHi, valLo, valHi);
    this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
  }

  /** FAIL from a bolt task in this process. */
  failLocal(rootLo: number, rootHi: number): void {
    const started = this.metrics.sampleExecute() ? performance.now() : -1;
    this.tracker.fail(rootLo, rootHi);
    this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
  }

  /** RESET from a bolt task in this process. */
  resetLocal(rootLo: number, rootHi: number): void {
    this.reset(rootLo, rootHi);
  }

  /** Storm's acker on `__ack_reset_timeout`: the tree stays, and its spout restarts the timeout too (rare: one message each, no gathering). */
  private reset(lo: number, hi: number): void {
    const spoutTask = this.tracker.reset(lo, hi);
    if (spoutTask >= 0) this.host.sendAck(spoutTask, this.task, RESET, lo, hi, 0, 0);
  }

  private reply(lo: number, hi: number, spoutTask: number, acked: boolean): void {
    if (acked) this.metrics.acked++;
    else this.metrics.failed++;
    this.metrics.emitted++;
    let local = this.spoutIsLocal[spoutTask];
    if (local === undefined) {
      local = this.host.runsHere(spoutTask);
      this.spoutIsLocal[spoutTask] = local;
    }
    if (!local) {
      // Another worker: the transport merges a batch's replies to one spout into one run of its ack section.
      this.host.sendAck(spoutTask, this.task, acked ? ACKED : FAILED, lo, hi, 0, 0);
      return;
    }
    let r = this.localReplies[spoutTask];
    if (r === undefined) {
      r = this.localReplies[spoutTask] = { spoutTask, acked: new RootList(), failed: new RootList() };
      this.replyOrder.push(r);
    }
    (acked ? r.acked : r.failed).push(lo, hi);
    if (!this.repliesWaiting) {
      // A tree may finish inside another executor's call (initLocal/ackLocal): ask for a run to flush it.
      this.repliesWaiting = true;
      this.host.wake();
    }
  }

  private flushReplies(): void {
    if (!this.repliesWaiting) return;
    this.repliesWaiting = false;
    for (const r of this.replyOrder) {
      if (r.acked.length > 0) this.host.sendAcks(r.spoutTask, this.task, ACKED, r.acked.take());
      if (r.failed.length > 0) this.host.sendAcks(r.spoutTask, this.task, FAILED, r.failed.take());
    }
  }
}
