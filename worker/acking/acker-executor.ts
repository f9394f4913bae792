/**
 * The acker task: feeds the ack protocol's system tuples into an AckTracker
 * (Storm's XOR algorithm, ack-tracker.ts) and tells the spout task of
 * each finished tree `ack` or `fail`. What arrives is checked first
 * (`acceptsSystem`): a forged or garbled frame is dropped and counted, never
 * fed into the XOR.
 *
 * Inside one worker the protocol's messages need no tuple: a spout or bolt in
 * the same process calls `initLocal` / `ackLocal` / `failLocal` (found through
 * ExecutorHost.localAcker), and the replies to a spout in this process are
 * gathered and handed over as one tuple per run of the acker. The algorithm is
 * the same — only the envelope is gone (a Tuple, a queue slot, a shape check
 * and a wake-up per message; see the numbers in docs/benchmarks.md).
 */
import { Executor } from '../executor/executor.js';
import type { ExecutorHost, LocalAcker } from '../executor/executor-host.js';
import type { ComponentSettings } from '../worker-settings.js';
import { ACK_ACK, ACK_FAIL, ACK_INIT, isAckerInput } from './system-streams.js';
import type { Tuple } from '../../topology-sdk/tuple.js';
import { ACKER_COMPONENT } from '../../common/topology-def.js';
import { AckTracker } from './ack-tracker.js';

/** Replies gathered for one spout task in this process. */
interface LocalReplies {
  acked: bigint[];
  failed: bigint[];
}

export class AckerExecutor extends Executor implements LocalAcker {
  private readonly tracker = new AckTracker((root, spoutTask, acked) => this.reply(root, spoutTask, acked));
  private rotateTimer: NodeJS.Timeout | null = null;
  /** Spout task → whether it runs in this process (resolved on first reply). */
  private readonly spoutIsLocal = new Map<number, boolean>();
  /** Replies for spouts in this process, flushed at the end of each run: one tuple per spout per run instead of one per tree. */
  private readonly localReplies = new Map<number, LocalReplies>();
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

  override acceptsSystem(stream: string, values: readonly unknown[]): boolean {
    return isAckerInput(stream, values);
  }

  ready(): boolean {
    return this.repliesWaiting || this.systemQueue.length > 0 || this.queue.length > 0;
  }

  runSlice(deadline: number): void {
    let t: Tuple | undefined;
    while ((t = this.systemQueue.shift() ?? this.queue.shift())) {
      const started = this.metrics.sampleExecute() ? performance.now() : -1;
      const messages = this.process(t.sourceStreamId, t.values);
      this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
      this.metrics.executed += messages - 1; // a merged tuple counts as the messages it carries
      if (performance.now() >= deadline) break;
    }
    this.flushReplies();
  }

  /** One ack-protocol tuple: one or more messages back to back; `values` were checked by acceptsSystem on the way in. */
  process(stream: string, v: readonly unknown[]): number {
    const n = v.length;
    if (stream === ACK_ACK) {
      for (let i = 0; i < n; i += 2) this.tracker.ack(v[i] as bigint, v[i + 1] as bigint);
      return n / 2;
    }
    if (stream === ACK_INIT) {
      for (let i = 0; i < n; i += 3) this.tracker.init(v[i] as bigint, v[i + 1] as bigint, v[i + 2] as number);
      return n / 3;
    }
    for (let i = 0; i < n; i++) this.tracker.fail(v[i] as bigint);
    return n;
  }

  // The in-process calls below run on their caller's time, so each is timed like a tuple's execute (one in
  // SAMPLE_EVERY): the acker's capacity then counts the work it does for the spouts and bolts beside it.

  /** __ack_init from a spout task in this process (its values are the runtime's own, not read off a socket). */
  initLocal(root: bigint, xor: bigint, spoutTask: number): void {
    const started = this.metrics.sampleExecute() ? performance.now() : -1;
    this.tracker.init(root, xor, spoutTask);
    this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
  }

  /** __ack_ack from a bolt task in this process. */
  ackLocal(root: bigint, val: bigint): void {
    const started = this.metrics.sampleExecute() ? performance.now() : -1;
    this.tracker.ack(root, val);
    this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
  }

  /** __ack_fail from a bolt task in this process. */
  failLocal(root: bigint): void {
    const started = this.metrics.sampleExecute() ? performance.now() : -1;
    this.tracker.fail(root);
    this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
  }

  private reply(root: bigint, spoutTask: number, acked: boolean): void {
    if (acked) this.metrics.acked++;
    else this.metrics.failed++;
    this.metrics.emitted++;
    let local = this.spoutIsLocal.get(spoutTask);
    if (local === undefined) {
      local = this.host.runsHere(spoutTask);
      this.spoutIsLocal.set(spoutTask, local);
    }
    if (!local) {
      // Another worker: the transport merges a batch's replies to one spout into one tuple.
      this.host.send(spoutTask, ACKER_COMPONENT, this.task, acked ? ACK_ACK : ACK_FAIL, [root], null);
      return;
    }
    let r = this.localReplies.get(spoutTask);
    if (r === undefined) this.localReplies.set(spoutTask, (r = { acked: [], failed: [] }));
    (acked ? r.acked : r.failed).push(root);
    if (!this.repliesWaiting) {
      // A tree may finish inside another executor's call (initLocal/ackLocal): ask for a run to flush it.
      this.repliesWaiting = true;
      this.host.wake();
    }
  }

  private flushReplies(): void {
    if (!this.repliesWaiting) return;
    this.repliesWaiting = false;
    for (const [spoutTask, r] of this.localReplies) {
      if (r.acked.length > 0) {
        this.host.send(spoutTask, ACKER_COMPONENT, this.task, ACK_ACK, r.acked, null);
        r.acked = [];
      }
      if (r.failed.length > 0) {
        this.host.send(spoutTask, ACKER_COMPONENT, this.task, ACK_FAIL, r.failed, null);
        r.failed = [];
      }
    }
  }
}
