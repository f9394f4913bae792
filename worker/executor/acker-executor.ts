/**
 * Storm's acker: per spout tuple (root id) it keeps the XOR of every edge id
 * created and acked in the tuple tree. When the XOR returns to zero after the
 * spout's init arrived, the tree is complete and the spout hears `ack`; any
 * fail in the tree makes it hear `fail`. Entries older than the message
 * timeout are dropped (the spout times them out on its own).
 */
import { Executor } from './executor.js';
import type { ExecutorHost } from './executor-host.js';
import { ACK_ACK, ACK_FAIL, ACK_INIT } from './system-streams.js';
import type { Tuple } from '../../topology-sdk/tuple.js';
import { ACKER_COMPONENT } from '../../common/topology-def.js';

interface TreeState {
  val: bigint;
  /** Spout task; -1 until the init message arrived (acks may overtake it). */
  spoutTask: number;
  failed: boolean;
  bornAt: number;
}

export class AckerExecutor extends Executor {
  private current = new Map<bigint, TreeState>();
  private previous = new Map<bigint, TreeState>();
  private rotateTimer: NodeJS.Timeout | null = null;

  constructor(host: ExecutorHost, task: number) {
    super(host, ACKER_COMPONENT, task, host.configOf(ACKER_COMPONENT)['topology.executor.receive.buffer.size'] as number);
  }

  get pendingTrees(): number {
    return this.current.size + this.previous.size;
  }

  async start(): Promise<void> {
    // Two generations rotated every timeout: an entry lives between one and two timeouts (Storm's RotatingMap).
    const timeoutMs = (this.host.configOf(ACKER_COMPONENT)['topology.message.timeout.secs'] as number) * 1000;
    this.rotateTimer = setInterval(() => {
      this.previous = this.current;
      this.current = new Map();
    }, timeoutMs);
    this.rotateTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.rotateTimer) clearInterval(this.rotateTimer);
  }

  ready(): boolean {
    return this.systemQueue.length > 0 || this.queue.length > 0;
  }

  runSlice(deadline: number): void {
    let t: Tuple | undefined;
    while ((t = this.systemQueue.shift() ?? this.queue.shift())) {
      const started = this.metrics.sampleExecute() ? performance.now() : -1;
      this.process(t);
      this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
      if (performance.now() >= deadline) break;
    }
  }

  private state(root: bigint): TreeState {
    let s = this.current.get(root);
    if (!s) {
      s = this.previous.get(root);
      if (s) this.previous.delete(root);
      else s = { val: 0n, spoutTask: -1, failed: false, bornAt: Date.now() };
      this.current.set(root, s);
    }
    return s;
  }

  private process(t: Tuple): void {
    const root = t.values[0] as bigint;
    const s = this.state(root);
    switch (t.sourceStreamId) {
      case ACK_INIT:
        s.val ^= t.values[1] as bigint;
        s.spoutTask = t.values[2] as number;
        break;
      case ACK_ACK:
        s.val ^= t.values[1] as bigint;
        break;
      case ACK_FAIL:
        s.failed = true;
        break;
      default:
        return;
    }
    if (s.spoutTask < 0) return;
    if (s.failed) this.reply(root, s.spoutTask, ACK_FAIL);
    else if (s.val === 0n) this.reply(root, s.spoutTask, ACK_ACK);
  }

  private reply(root: bigint, spoutTask: number, stream: string): void {
    this.current.delete(root);
    if (stream === ACK_ACK) this.metrics.acked++;
    else this.metrics.failed++;
    this.metrics.emitted++;
    this.host.send(spoutTask, ACKER_COMPONENT, this.task, stream, [root], null);
  }
}
