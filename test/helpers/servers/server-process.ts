/**
 * One database or broker server process started by a test: spawned with its
 * output kept (a tail, for error messages), waited on until a readiness probe
 * passes, stopped with SIGTERM then SIGKILL, and killed when the test process
 * exits so that no server outlives the run. Each runs in its own process
 * group and signals go to the whole group: RabbitMQ's start script forwards
 * SIGTERM to the Erlang VM it runs as a child, and a SIGKILL of the script
 * alone would leave the VM running. The servers themselves
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
    this.signalGroup('SIGKILL');
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
    const options: SpawnOptions = {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: spec.env ?? process.env,
      cwd: spec.cwd,
      detached: true,
    };
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
    if (this.running) this.signalGroup(sig);
  }

  private get running(): boolean {
    return this.proc.pid !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  private signalGroup(sig: NodeJS.Signals): void {
    if (this.proc.pid === undefined) return;
    try {
      process.kill(-this.proc.pid, sig);
    } catch {
      // ESRCH: the group is gone already.
    }
  }

  /** SIGTERM (or `sig`), then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs = 10_000, sig: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.stopping ??= (async () => {
      process.removeListener('exit', this.killOnExit);
      if (!this.running) return;
      this.signalGroup(sig);
      const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
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

/** What every test server offers: where it listens, its process, and outages on demand. */
export interface TestServer {
  host: string;
  port: number;
  /** The URL a client connects with. */
  url: string;
  /** The running server (a test's `kill -9` is `process.signal('SIGKILL')`); a new one after bringUp. */
  readonly process: ServerProcess;
  /** Stops the server and keeps its data (what survives depends on the server: see each one). */
  takeDown(): Promise<void>;
  /** Starts the server again on the same port with the same data. */
  bringUp(): Promise<void>;
  /** Stops the server and removes everything it wrote. */
  stop(): Promise<void>;
}

/**
 * A TestServer around `start` (which starts the server process, again after each takeDown), with `fields` besides;
 * `stop` ends the process, then runs `cleanup` (remove the directory, end helper processes).
 */
export async function restartableServer<F extends { host: string; port: number; url: string }>(
  fields: F,
  start: () => Promise<ServerProcess>,
  options: { cleanup: () => Promise<void>; graceMs?: number; stopSignal?: NodeJS.Signals },
): Promise<F & TestServer> {
  let server = await start();
  const halt = (): Promise<void> => server.stop(options.graceMs, options.stopSignal);
  const handle = {
    ...fields,
    takeDown: halt,
    bringUp: async () => {
      server = await start();
    },
    stop: async () => {
      await halt();
      await options.cleanup();
    },
  };
  // A getter, not a copy: after bringUp it is the new process.
  return Object.defineProperty(handle, 'process', { get: () => server, enumerable: true }) as F & TestServer;
}
