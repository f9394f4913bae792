/**
 * Storm's ShellBolt: a bolt whose logic runs in a subprocess speaking the
 * multilang protocol over stdin/stdout (storm.py, storm.js and other
 * multilang libraries work unchanged).
 *
 * The bolt side is asynchronous, as in Storm: every input tuple is written
 * to the subprocess under a fresh id and kept until the subprocess acks or
 * fails that id; emits (anchored by input ids, or direct to a task) are
 * answered with the task ids they went to unless `need_task_ids` is false.
 * Every heartbeat period a `__heartbeat` tuple (task -1) asks for a `sync`;
 * a subprocess silent for `topology.subprocess.timeout.secs`, one that exits,
 * or one that writes something that is not a message, is killed: its pending
 * input tuples are failed (so spouts replay them) and a new subprocess is
 * started. Acks already passed on stay acked.
 *
 * @example
 * b.setBolt('split', () => new ShellBolt({ command: ['python3', 'splitsentence.py'], outputFields: ['word'] }), 2)
 *  .shuffleGrouping('sentences');
 */
import { Bolt, type Conf, type OutputCollector } from './components.js';
import type { TopologyContext } from './context.js';
import { HEARTBEAT_STREAM, SYSTEM_TASK_ID, randomTupleId, type EmitMsg, type ShellMsg } from './internal/multilang-protocol.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { ShellProcess } from './internal/shell-process.js';
import { ShellRunner, type ShellComponentOptions } from './internal/shell-runner.js';
import { declareShellStreams, logFromShell, metricsFromShell } from './internal/shell-common.js';
import type { Tuple } from './tuple.js';
import type { UserHistogram } from './user-metrics.js';

export class ShellBolt extends Bolt {
  private readonly runner: ShellRunner;
  private collector!: OutputCollector;
  private ctx!: TopologyContext;
  /** Input tuples handed to the subprocess and not yet acked or failed by it, by the id it knows them under. */
  private readonly inputs = new Map<string, Tuple>();
  /** When each input was written, for the `multilang.process.ms` histogram (write → ack/fail). */
  private readonly sentAt = new Map<string, number>();
  private processMs: UserHistogram | null = null;
  /** Time with at least one tuple in the subprocess: its busy time, so the task's capacity counts the work done there. */
  private busyMs = 0;
  private busySince: number | null = null;

  constructor(options: ShellComponentOptions) {
    super();
    this.runner = new ShellRunner(options, {
      onMessage: (msg, proc) => this.handle(msg, proc),
      onDeath: (reason) => this.failPending(reason),
      onTick: (proc) => proc.write({ id: randomTupleId(), comp: null, stream: HEARTBEAT_STREAM, task: SYSTEM_TASK_ID, tuple: [] }),
      awaitingAnswer: () => true,
    });
  }

  /** Tuples the subprocess holds unanswered. */
  get pendingCount(): number {
    return this.inputs.size;
  }

  /** How many times the subprocess was restarted. */
  get restarts(): number {
    return this.runner.restarts;
  }

  override async prepare(conf: Conf, ctx: TopologyContext, collector: OutputCollector): Promise<void> {
    this.collector = collector;
    this.ctx = ctx;
    ctx.registerGauge('multilang.pending', () => this.inputs.size);
    ctx.registerGauge('multilang.restarts', () => this.runner.restarts);
    this.processMs = ctx.registerHistogram('multilang.process.ms');
    ctx.reportBusyTime(() => this.busyMs + (this.busySince === null ? 0 : performance.now() - this.busySince));
    await this.runner.start(conf, ctx);
  }

  execute(tuple: Tuple): void | Promise<void> {
    const proc = this.runner.proc;
    if (!proc?.alive) return this.runner.live().then((p) => (p ? this.send(p, tuple) : this.collector.fail(tuple)));
    return this.send(proc, tuple);
  }

  private send(proc: ShellProcess, tuple: Tuple): void | Promise<void> {
    const id = randomTupleId();
    const now = performance.now();
    if (this.inputs.size === 0) this.busySince = now;
    this.inputs.set(id, tuple);
    this.sentAt.set(id, now);
    const room = proc.write({ id, comp: tuple.sourceComponent, stream: tuple.sourceStreamId, task: tuple.sourceTask, tuple: tuple.values });
    // The pipe is full: hold the executor back until the subprocess reads (Storm bounds its write queue the same way).
    if (!room) return proc.drained();
  }

  private handle(msg: ShellMsg, proc: ShellProcess): void {
    try {
      switch (msg.command) {
        case 'emit':
          this.emit(msg, proc);
          break;
        case 'ack':
          this.collector.ack(this.take(msg.id, 'acked'));
          break;
        case 'fail':
          this.collector.fail(this.take(msg.id, 'failed'));
          break;
        case 'error':
          this.collector.reportError(new Error(`Shell Process Exception: ${String(msg.msg)}`));
          break;
        case 'log':
          logFromShell(this.ctx, msg);
          break;
        case 'metrics':
          metricsFromShell(this.ctx, msg);
          break;
        case 'sync':
          // A heartbeat answer: the runner already noted that the process is alive.
          break;
      }
    } catch (err) {
      proc.die(`sent a message the bolt cannot carry out: ${(err as Error).message}`);
    }
  }

  private take(id: string | number, what: string): Tuple {
    const key = String(id);
    const t = this.inputs.get(key);
    if (!t) throw new Error(`${what} a non-existent or already acked/failed id: ${key}`);
    this.inputs.delete(key);
    const now = performance.now();
    const sent = this.sentAt.get(key);
    this.sentAt.delete(key);
    if (sent !== undefined) this.processMs?.update(now - sent);
    if (this.inputs.size === 0) this.idle(now);
    return t;
  }

  private emit(msg: EmitMsg, proc: ShellProcess): void {
    const ids = msg.anchors == null ? [] : typeof msg.anchors === 'string' ? [msg.anchors] : msg.anchors;
    const anchors = ids.map((a) => {
      const t = this.inputs.get(a);
      if (!t) throw new Error(`anchored onto ${a} after ack/fail`);
      return t;
    });
    const options = { stream: msg.stream ?? undefined, anchors };
    if (msg.task != null && msg.task !== 0) {
      this.collector.emitDirect(msg.task, msg.tuple, options);
      return;
    }
    const tasks = this.collector.emit(msg.tuple, options);
    if (msg.need_task_ids !== false) proc.write(tasks);
  }

  /** The subprocess is gone: whatever it held is failed, so the spouts replay it. */
  private failPending(reason: string): void {
    const pending = [...this.inputs.values()];
    this.inputs.clear();
    this.sentAt.clear();
    this.idle(performance.now());
    for (const t of pending) this.collector.fail(t);
    this.ctx.log.error({ failed: pending.length, restarts: this.runner.restarts + 1 }, `${reason}; failed its ${pending.length} pending tuple(s), restarting it`);
    this.collector.reportError(new Error(reason));
  }

  private idle(now: number): void {
    if (this.busySince !== null) this.busyMs += now - this.busySince;
    this.busySince = null;
  }

  override async cleanup(): Promise<void> {
    await this.runner.stop();
    this.inputs.clear();
    this.sentAt.clear();
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    declareShellStreams(d, this.runner.options);
  }
}
