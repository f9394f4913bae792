/**
 * The acker task: feeds the ack protocol's system tuples into an AckTracker
 * (Storm's XOR algorithm, worker/ack-tracker.ts) and tells the spout task of
 * each finished tree `ack` or `fail`. What arrives is checked first
 * (`acceptsSystem`): a forged or garbled frame is dropped and counted, never
 * fed into the XOR.
 */
import { Executor } from './executor.js';
import type { ExecutorHost } from './executor-host.js';
import { ACK_ACK, ACK_FAIL, ACK_INIT, isAckerInput } from './system-streams.js';
import type { Tuple } from '../../topology-sdk/tuple.js';
import { ACKER_COMPONENT } from '../../common/topology-def.js';
import { AckTracker } from '../ack-tracker.js';

export class AckerExecutor extends Executor {
  private readonly tracker = new AckTracker((root, spoutTask, acked) => this.reply(root, spoutTask, acked));
  private rotateTimer: NodeJS.Timeout | null = null;

  constructor(host: ExecutorHost, task: number) {
    super(host, ACKER_COMPONENT, task, host.configOf(ACKER_COMPONENT)['topology.executor.receive.buffer.size'] as number);
  }

  get pendingTrees(): number {
    return this.tracker.size;
  }

  async start(): Promise<void> {
    // Two generations rotated every timeout: an entry lives between one and two timeouts (Storm's RotatingMap).
    const timeoutMs = (this.host.configOf(ACKER_COMPONENT)['topology.message.timeout.secs'] as number) * 1000;
    this.rotateTimer = setInterval(() => this.tracker.rotate(), timeoutMs);
    this.rotateTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.rotateTimer) clearInterval(this.rotateTimer);
  }

  override acceptsSystem(stream: string, values: readonly unknown[]): boolean {
    return isAckerInput(stream, values);
  }

  ready(): boolean {
    return this.systemQueue.length > 0 || this.queue.length > 0;
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

  private reply(root: bigint, spoutTask: number, acked: boolean): void {
    if (acked) this.metrics.acked++;
    else this.metrics.failed++;
    this.metrics.emitted++;
    this.host.send(spoutTask, ACKER_COMPONENT, this.task, acked ? ACK_ACK : ACK_FAIL, [root], null);
  }
}
