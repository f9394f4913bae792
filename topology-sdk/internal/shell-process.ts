/**
 * One multilang subprocess: started in the component's resources directory,
 * handed the handshake (conf, context, pidDir), read back as framed JSON
 * messages. Whatever ends it — exit, a broken pipe, garbage on stdout — is
 * reported once through `onDeath`, with the exit status and the tail of its
 * stderr, so the shell component can fail its pending tuples and start a new one.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { MultilangError } from '../../common/errors.js';
import type { ComponentLogger } from '../context.js';
import { frame, MessageFramer, parsePidMsg, parseShellMsg, preview, ShellProtocolError, type ShellMsg } from './multilang-protocol.js';

export interface ShellCommand {
  /** Program and arguments, e.g. `['python3', 'splitsentence.py']` (no shell is involved). */
  command: readonly string[];
  /** Working directory of the subprocess: where the script lies (Storm: the topology's resources directory). */
  cwd: string;
  /** Extra environment variables (the worker's own environment is passed on). */
  env?: Readonly<Record<string, string>>;
}

export interface Handshake {
  conf: Readonly<Record<string, unknown>>;
  context: Record<string, unknown>;
  pidDir: string;
}

/** Stderr kept for the log line that reports a death. */
const STDERR_TAIL = 4000;
/** The worker's launch description is the worker's business, not the script's. */
const PRIVATE_ENV = ['HSTORM_WORKER_LAUNCH'];

/** A command message (a log, say) that came before the handshake's pid; null for anything else. */
function earlyMessage(text: string): ShellMsg | null {
  try {
    return parseShellMsg(text);
  } catch {
    return null;
  }
}

export class ShellProcess {
  private dead = false;
  private stderrTail = '';
  private readonly framer = new MessageFramer();
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exited: Promise<void>;
  /** Set by the owner: each message after the handshake. */
  onMessage: (msg: ShellMsg) => void = () => undefined;
  /** Set by the owner: called once, on the first sign the process is gone or broken. */
  onDeath: (reason: string) => void = () => undefined;
  /** Messages that came before the owner set onMessage and called flushEarly (see onLine). */
  private early: ShellMsg[] = [];
  private owned = false;
  private handshake: { resolve: (pid: number) => void; reject: (err: Error) => void } | null = null;
  pid: number | null = null;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly label: string,
    private readonly cwd: string,
    private readonly log: ComponentLogger,
  ) {
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
  }

  /**
   * Starts the process and runs the handshake; resolves once it sent its pid,
   * rejects (MultilangError, with its stderr) when it dies, sends something
   * else, or is silent for `timeoutMs`.
   */
  static async launch(cmd: ShellCommand, hello: Handshake, log: ComponentLogger, timeoutMs: number): Promise<ShellProcess> {
    const [program, ...args] = cmd.command;
    if (!program) throw new MultilangError('a shell component needs a command, e.g. ["python3", "bolt.py"]', []);
    const env: NodeJS.ProcessEnv = { ...process.env, ...cmd.env };
    for (const k of PRIVATE_ENV) delete env[k];
    const child = spawn(program, args, { cwd: cmd.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const p = new ShellProcess(child, cmd.command.join(' '), cmd.cwd, log);
    p.attach();
    const pid = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => p.die(`sent no {"pid": …} within ${timeoutMs} ms of the handshake`), timeoutMs);
      p.handshake = {
        resolve: (n) => {
          clearTimeout(timer);
          resolve(n);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      p.write({ pidDir: hello.pidDir, conf: hello.conf, context: hello.context });
    });
    p.pid = pid;
    return p;
  }

  private attach(): void {
    const c = this.child;
    c.on('error', (err) => this.die(`could not run (${err.message}) in ${this.cwdHint()}`));
    // 'close' rather than 'exit': by then stdout is read to its end, so acks written just before exiting still count.
    c.on('close', (code, signal) => {
      this.exit = { code, signal };
      this.die(signal ? `was killed by ${signal}` : `exited with code ${code}`);
    });
    // A broken pipe usually means the process is exiting: let 'close' report it with its exit status.
    c.stdin.on('error', (err) => setTimeout(() => this.die(`stopped reading its stdin (${err.message})`), 2000).unref());
    c.stderr.setEncoding('utf8');
    c.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
      // Storm logs a subprocess's stderr in the worker log (at info).
      for (const line of chunk.split('\n')) if (line.trim()) this.log.info({ subprocess: this.pid ?? c.pid, stderr: line.slice(0, 2000) }, 'multilang subprocess stderr');
    });
    const lines = createInterface({ input: c.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => this.onLine(line));
  }

  private cwdHint(): string {
    return this.cwd;
  }

  private onLine(line: string): void {
    if (this.dead) return;
    let text: string | null;
    try {
      text = this.framer.push(line);
    } catch (err) {
      this.die(`sent garbage on stdout: ${(err as Error).message}`);
      return;
    }
    if (text === null) return;
    try {
      if (this.handshake) {
        // storm.js sends the pid only after the component's initialize, which may already log: keep such messages for the owner.
        const early = earlyMessage(text);
        if (early) {
          this.early.push(early);
          return;
        }
        const pid = parsePidMsg(text);
        const h = this.handshake;
        this.handshake = null;
        h.resolve(pid);
        return;
      }
      const msg = parseShellMsg(text);
      // Between the pid and the owner taking over (a microtask later), messages wait with the early ones.
      if (this.owned) this.onMessage(msg);
      else this.early.push(msg);
    } catch (err) {
      if (err instanceof ShellProtocolError) this.die(`sent garbage on stdout: ${err.message}`);
      else throw err;
    }
  }

  /** Hands the owner the messages that arrived before it took over (also those before the pid); call once onMessage is set. */
  flushEarly(): void {
    const early = this.early;
    this.early = [];
    this.owned = true;
    for (const m of early) if (!this.dead) this.onMessage(m);
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** Writes one framed message; false when the pipe is full (wait for `drained()` before the next). */
  write(value: unknown): boolean {
    if (this.dead || this.child.stdin.destroyed) return true;
    return this.child.stdin.write(frame(value));
  }

  /** Resolves when the pipe to the subprocess has room again (or the process is gone). */
  drained(): Promise<void> {
    if (this.dead || !this.child.stdin.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.child.stdin.off('drain', done);
        this.child.off('close', done);
        resolve();
      };
      this.child.stdin.once('drain', done);
      this.child.once('close', done);
    });
  }

  /** Marks the process dead (once), kills it and tells the owner why. */
  die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.kill('SIGKILL');
    const err = new MultilangError(`multilang subprocess \`${this.label}\` (pid ${this.pid ?? this.child.pid ?? '?'}) ${reason}${this.describeEnd()}`, [...this.label.split(' ')]);
    if (this.handshake) {
      const h = this.handshake;
      this.handshake = null;
      h.reject(err);
      return;
    }
    this.onDeath(err.message);
  }

  /** Exit status, the output it left half-written and its last stderr, for the log. */
  describeEnd(): string {
    const parts: string[] = [];
    if (this.exit) parts.push(this.exit.signal ? `signal ${this.exit.signal}` : `exit code ${this.exit.code}`);
    if (this.framer.partial) parts.push(`unterminated output ${preview(this.framer.partial)}`);
    const err = this.stderrTail.trim();
    if (err) parts.push(`stderr: ${err.split('\n').slice(-8).join(' | ')}`);
    return parts.length ? ` [${parts.join('; ')}]` : '';
  }

  private kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  /** Ends the process for good: closes its stdin, asks it to stop, kills it after `graceMs`. */
  async stop(graceMs = 2000): Promise<void> {
    this.dead = true;
    this.child.stdin.end();
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
