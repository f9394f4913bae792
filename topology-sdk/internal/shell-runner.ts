/**
 * What ShellBolt and ShellSpout share: start the subprocess with the
 * handshake, watch that it answers (Storm's subprocess heartbeat timeout),
 * and when it dies, hangs or talks garbage, tell the component (which fails
 * what it had pending) and start a new one, backing off while starts keep
 * failing. Storm kills the whole worker instead; here the worker and its other
 * tasks keep running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Conf } from '../components.js';
import type { TopologyContext } from '../context.js';
import { stormContextJson, type ShellMsg } from './multilang-protocol.js';
import { resourcesDirFor } from './multilang-resources.js';
import { ShellProcess } from './shell-process.js';

export interface ShellComponentOptions {
  /** Program and arguments, e.g. `['python3', 'splitsentence.py']`; no shell is involved. */
  command: readonly string[];
  /**
   * Working directory of the subprocess. Default: the topology module's
   * `resources/` directory (see multilang-resources.ts); a relative path is
   * taken from there.
   */
  cwd?: string;
  /** Extra environment variables for the subprocess. */
  env?: Readonly<Record<string, string>>;
  /** Fields of the default stream (`declareOutputFields` declares them). */
  outputFields?: readonly string[];
  /** Further output streams: stream id → fields. */
  streams?: Readonly<Record<string, readonly string[]>>;
  /** How often the timeout is checked and a bolt's heartbeat tuple sent (Storm: 1 s). */
  heartbeatMs?: number;
  /** Clock for the timeout (tests). */
  now?: () => number;
}

export interface RunnerHooks {
  onMessage(msg: ShellMsg, proc: ShellProcess): void;
  /** The process is gone; `reason` is the full log line. Called before the restart begins. */
  onDeath(reason: string): void;
  /** Every heartbeat period while a process runs (after the timeout check). */
  onTick(proc: ShellProcess): void;
  /** Whether the subprocess owes an answer now (a spout between command and sync; a bolt always). */
  awaitingAnswer(): boolean;
}

const MAX_BACKOFF_MS = 5000;

export class ShellRunner {
  proc: ShellProcess | null = null;
  /** Set while a restart is under way; calls that need the process wait on it. */
  restarting: Promise<void> | null = null;
  restarts = 0;
  private lastHeard = 0;
  private timer: NodeJS.Timeout | null = null;
  private pidDir = '';
  private stopped = false;
  private failedStarts = 0;
  private conf!: Conf;
  private ctx!: TopologyContext;
  private timeoutMs = 30_000;
  private readonly now: () => number;
  private readonly heartbeatMs: number;

  constructor(
    readonly options: ShellComponentOptions,
    private readonly hooks: RunnerHooks,
  ) {
    if (!Array.isArray(options.command) || options.command.length === 0 || options.command.some((c) => typeof c !== 'string' || c === '')) {
      throw new TypeError(`a shell component's command must be a non-empty array of strings, e.g. ["python3", "bolt.py"] (got ${JSON.stringify(options.command)})`);
    }
    this.now = options.now ?? Date.now;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
  }

  get label(): string {
    return this.options.command.join(' ');
  }

  get cwd(): string {
    const base = resourcesDirFor(this.ctx.codeDir);
    const c = this.options.cwd;
    return c === undefined ? base : isAbsolute(c) ? c : resolve(base, c);
  }

  /** First start (prepare / open): a subprocess that cannot even start makes the component fail to start, as in Storm. */
  async start(conf: Conf, ctx: TopologyContext): Promise<void> {
    this.conf = conf;
    this.ctx = ctx;
    const secs = conf['topology.subprocess.timeout.secs'] ?? conf['nimbus.task.timeout.secs'] ?? 30;
    this.timeoutMs = secs * 1000;
    this.pidDir = mkdtempSync(join(tmpdir(), `hstorm-pids-${ctx.componentId.replace(/[^\w.-]/g, '_')}-${ctx.taskId}-`));
    try {
      await this.launch();
    } catch (err) {
      rmSync(this.pidDir, { recursive: true, force: true });
      throw err;
    }
    this.timer = setInterval(() => this.tick(), this.heartbeatMs);
    this.timer.unref();
  }

  private async launch(): Promise<void> {
    const proc = await ShellProcess.launch(
      { command: this.options.command, cwd: this.cwd, env: this.options.env ?? {} },
      { conf: this.conf, context: stormContextJson(this.ctx.topologyDef, this.ctx.componentId, this.ctx.taskId, (c) => this.ctx.tasksOf(c)), pidDir: this.pidDir },
      this.ctx.log,
      this.timeoutMs,
    );
    if (this.stopped) {
      await proc.stop();
      return;
    }
    proc.onMessage = (msg) => {
      this.lastHeard = this.now();
      this.failedStarts = 0;
      this.hooks.onMessage(msg, proc);
    };
    proc.onDeath = (reason) => this.died(reason);
    this.lastHeard = this.now();
    this.proc = proc;
    proc.flushEarly();
    this.ctx.log.info({ pid: proc.pid, command: this.label, cwd: this.cwd }, 'launched multilang subprocess');
  }

  /** Resets the silence clock: a command was just sent and its answer is now owed. */
  markWaiting(): void {
    this.lastHeard = this.now();
  }

  private tick(): void {
    const proc = this.proc;
    if (!proc || !proc.alive || this.stopped) return;
    if (this.hooks.awaitingAnswer() && this.now() - this.lastHeard > this.timeoutMs) {
      proc.die(`sent nothing for ${this.timeoutMs / 1000} s (topology.subprocess.timeout.secs): subprocess heartbeat timeout, the process hangs`);
      return;
    }
    this.hooks.onTick(proc);
  }

  private died(reason: string): void {
    this.proc = null;
    if (this.stopped) return;
    this.hooks.onDeath(reason);
    this.restarts++;
    this.restarting = this.relaunch().finally(() => (this.restarting = null));
  }

  private async relaunch(): Promise<void> {
    while (!this.stopped) {
      if (this.failedStarts > 0) await sleep(Math.min(MAX_BACKOFF_MS, 100 * 2 ** (this.failedStarts - 1)));
      if (this.stopped) return;
      try {
        await this.launch();
        return;
      } catch (err) {
        this.failedStarts++;
        this.ctx.log.error({ err, attempt: this.failedStarts }, `cannot restart multilang subprocess \`${this.label}\`; trying again`);
      }
    }
  }

  /** Waits for a restart under way, then returns the live process (null once stopped). */
  async live(): Promise<ShellProcess | null> {
    while (!this.stopped) {
      if (this.proc?.alive) return this.proc;
      if (this.restarting) await this.restarting;
      else await sleep(10);
    }
    return null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    // A restart under way is not awaited (it may be backing off for seconds): launch() stops what it started once it sees `stopped`.
    await this.proc?.stop();
    this.proc = null;
    if (this.pidDir) rmSync(this.pidDir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
