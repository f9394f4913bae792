/**
 * Storm's ShellSpout: a spout whose logic runs in a subprocess speaking the
 * multilang protocol. The spout side is synchronous, as in Storm: one command
 * at a time (`next`, `ack`, `fail`, `activate`, `deactivate`), then the
 * subprocess's emits and logs up to its `sync`. `nextTuple` resolves at the
 * sync, so the executor sends nothing else meanwhile; acks and fails queue
 * behind it in order.
 *
 * A subprocess that stays silent past `topology.subprocess.timeout.secs`
 * while it owes a sync, exits, or writes garbage is killed and a new one
 * started (the command it owed counts as answered). Messages its predecessor
 * emitted stay tracked by the executor; their acks, fails and timeouts are
 * delivered to the new process, which replays what it can (a spout reading a
 * durable source knows its ids; an in-memory one starts over).
 */
import { Spout, type Conf, type SpoutOutputCollector } from './components.js';
import type { TopologyContext } from './context.js';
import type { EmitMsg, ShellMsg } from './internal/multilang-protocol.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { ShellProcess } from './internal/shell-process.js';
import { ShellRunner, type ShellComponentOptions } from './internal/shell-runner.js';
import { declareShellStreams, logFromShell, metricsFromShell } from './internal/shell-common.js';

type SpoutCommand = 'next' | 'ack' | 'fail' | 'activate' | 'deactivate';

export class ShellSpout extends Spout {
  private readonly runner: ShellRunner;
  private collector!: SpoutOutputCollector;
  private ctx!: TopologyContext;
  /** Commands run one after another: each waits for the previous sync. */
  private chain: Promise<void> = Promise.resolve();
  /** The command in progress: resolved by its sync, or by the death of the process. */
  private waiting: { proc: ShellProcess; done: () => void } | null = null;
  /** Whether the executor activated the spout, and the subprocess that last heard a command. */
  private active = false;
  private greeted: ShellProcess | null = null;

  constructor(options: ShellComponentOptions) {
    super();
    this.runner = new ShellRunner(options, {
      onMessage: (msg, proc) => this.handle(msg, proc),
      onDeath: (reason) => this.lost(reason),
      onTick: () => undefined,
      awaitingAnswer: () => this.waiting !== null,
    });
  }

  get restarts(): number {
    return this.runner.restarts;
  }

  override async open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): Promise<void> {
    this.collector = collector;
    this.ctx = ctx;
    ctx.registerGauge('multilang.restarts', () => this.runner.restarts);
    await this.runner.start(conf, ctx);
  }

  nextTuple(): Promise<void> {
    // Storm sends the id field with every command; "" when there is none.
    return this.enqueue('next', '');
  }

  override ack(messageId: unknown): void {
    void this.enqueue('ack', messageId);
  }

  override fail(messageId: unknown): void {
    void this.enqueue('fail', messageId);
  }

  override activate(): void {
    void this.enqueue('activate', '');
  }

  override deactivate(): void {
    void this.enqueue('deactivate', '');
  }

  private enqueue(command: SpoutCommand, id: unknown): Promise<void> {
    const run = this.chain.then(() => this.query(command, id));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async query(command: SpoutCommand, id: unknown): Promise<void> {
    const proc = await this.runner.live();
    if (!proc) return;
    if (command === 'activate') this.active = true;
    if (command === 'deactivate') this.active = false;
    // A restarted subprocess of an active spout hears `activate` first, as its predecessor did.
    if (proc !== this.greeted) {
      this.greeted = proc;
      if (this.active && command !== 'activate') await this.roundTrip(proc, 'activate', '');
    }
    await this.roundTrip(proc, command, id);
  }

  private async roundTrip(proc: ShellProcess, command: SpoutCommand, id: unknown): Promise<void> {
    if (!proc.alive) return;
    await new Promise<void>((resolve) => {
      this.waiting = { proc, done: resolve };
      this.runner.markWaiting();
      proc.write({ command, id });
    });
  }

  private handle(msg: ShellMsg, proc: ShellProcess): void {
    try {
      switch (msg.command) {
        case 'sync': {
          const w = this.waiting;
          if (w && w.proc === proc) {
            this.waiting = null;
            w.done();
          }
          break;
        }
        case 'emit':
          this.emit(msg, proc);
          break;
        case 'log':
          logFromShell(this.ctx, msg);
          break;
        case 'error':
          this.collector.reportError(new Error(`Shell Process Exception: ${String(msg.msg)}`));
          break;
        case 'metrics':
          metricsFromShell(this.ctx, msg);
          break;
        default:
          throw new Error(`unknown command received: ${msg.command}`);
      }
    } catch (err) {
      proc.die(`sent a message the spout cannot carry out: ${(err as Error).message}`);
    }
  }

  private emit(msg: EmitMsg, proc: ShellProcess): void {
    const options = { stream: msg.stream ?? undefined, messageId: msg.id ?? undefined };
    if (msg.task != null && msg.task !== 0) {
      this.collector.emitDirect(msg.task, msg.tuple, options);
      return;
    }
    const tasks = this.collector.emit(msg.tuple, options);
    if (msg.need_task_ids !== false) proc.write(tasks);
  }

  private lost(reason: string): void {
    const w = this.waiting;
    this.waiting = null;
    this.ctx.log.error({ restarts: this.runner.restarts + 1 }, `${reason}; restarting it`);
    this.collector.reportError(new Error(reason));
    w?.done();
  }

  override async close(): Promise<void> {
    await this.runner.stop();
    this.waiting?.done();
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    declareShellStreams(d, this.runner.options);
  }
}
