/**
 * One database or broker server process started by a test: spawned with its
 * output kept (a tail, for error messages), waited on until a readiness probe
 * passes, stopped with SIGTERM then SIGKILL, and killed when the test process
 * exits so that no server outlives the run. The servers themselves
 * (redis.ts, postgres.ts, rabbitmq.ts) say how to start and probe each.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { connect } from 'node:net';

export interface ServerProcessSpec {
  /** Names the server in messages ("redis-server on port 6400"). */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this user and group (servers that refuse to run as root). */
  uid?: number;
  gid?: number;
  /** Resolves true once the server answers; errors count as "not yet". */
  ready: () => Promise<boolean>;
  startTimeoutMs?: number;
}

export class ServerProcess {
  private tail = '';
  private stopping: Promise<void> | undefined;
  private readonly killOnExit = (): void => {
    this.proc.kill('SIGKILL');
  };
  /** Resolves with the exit code or signal once the process has ended. */
  readonly exited: Promise<number | string>;

  private constructor(private readonly proc: ChildProcess) {
    const keep = (b: Buffer): void => {
      this.tail = (this.tail + b.toString('utf8')).slice(-4000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    // A process that could not be spawned never emits 'exit': its spawn error is its end.
    this.exited = new Promise((res) => {
      proc.once('exit', (code, signal) => res(code ?? signal ?? 'unknown'));
      proc.once('error', (e) => res(`spawn error: ${e.message}`));
    });
    process.once('exit', this.killOnExit);
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** The last few KB the server wrote to stdout and stderr. */
  get output(): string {
    return this.tail;
  }

  /** Spawns the server and waits until `spec.ready()` holds; on failure kills it and throws with its output. */
  static async start(spec: ServerProcessSpec): Promise<ServerProcess> {
    const options: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], env: spec.env ?? process.env, cwd: spec.cwd };
    if (spec.uid !== undefined) options.uid = spec.uid;
    if (spec.gid !== undefined) options.gid = spec.gid;
    const server = new ServerProcess(spawn(spec.command, spec.args, options));
    let ended: string | undefined;
    void server.exited.then((c) => (ended = String(c)));
    const timeoutMs = spec.startTimeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (ended !== undefined) {
        await server.stop();
        throw new Error(`${spec.name} ended (${ended}) before it was ready; its output ended with:\n${server.tail}`);
      }
      if (await spec.ready().catch(() => false)) return server;
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`${spec.name} was not ready within ${timeoutMs} ms; its output ended with:\n${server.tail}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Sends a signal now (a test's `kill -9`); `exited` says when it has ended. */
  signal(sig: NodeJS.Signals): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(sig);
  }

  /** SIGTERM (or `sig`), then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs = 10_000, sig: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.stopping ??= (async () => {
      process.removeListener('exit', this.killOnExit);
      if (this.proc.pid === undefined || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
      this.proc.kill(sig);
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    })();
    return this.stopping;
  }
}

/** Writes `request` to host:port and resolves with what came back within `timeoutMs` ('' on any failure). */
export function tcpAnswer(host: string, port: number, request: string | Buffer, timeoutMs = 1000): Promise<string> {
  return new Promise((res) => {
    let answer = '';
    const sock = connect({ host, port });
    const done = (): void => {
      clearTimeout(timer);
      sock.destroy();
      res(answer);
    };
    const timer = setTimeout(done, timeoutMs);
    sock.on('connect', () => sock.write(request));
    sock.on('data', (b: Buffer) => {
      answer += b.toString('latin1');
      // One reply is all a probe needs.
      done();
    });
    sock.on('end', done);
    sock.on('error', () => {
      answer = '';
      done();
    });
  });
}
