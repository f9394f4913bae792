/**
 * A single-node ZooKeeper server for development and tests: finds an
 * installation (ZOOKEEPER_HOME, Debian's `zookeeper` package), starts
 * `ZooKeeperServerMain` with a generated config (admin server off, `ruok`/`srvr`
 * allowed), waits until it answers `ruok`, and stops it. Used by
 * `hstorm dev-zookeeper` and by the test harness (test/helpers/zookeeper.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { HstormError } from './errors.js';
import type { Logger } from './logger.js';

export interface ZooKeeperInstallation {
  java: string;
  classpath: string[];
  /** Where it was found, for messages. */
  from: string;
}

export interface ZooKeeperServerOptions {
  port: number;
  dataDir: string;
  /** Address to listen on; all interfaces when omitted. */
  host?: string;
  /** ZooKeeper's tick; sessions may last 2..20 ticks (default 1000 ms: sessions of 2 s to 20 s). */
  tickTimeMs?: number;
  /** Give up (and kill the server) when it does not answer `ruok` within this time. */
  startTimeoutMs?: number;
  /** `inherit` shows ZooKeeper's own log on this process's stderr; `pipe` keeps only a tail for error messages. */
  output?: 'inherit' | 'pipe';
  /** ZooKeeper's log level (slf4j-simple, Debian layout only). */
  logLevel?: 'error' | 'warn' | 'info' | 'debug';
  /** fsync the transaction log (default true; tests turn it off for speed). */
  forceSync?: boolean;
  /** Java heap in MiB (default 256: a development server). */
  heapMb?: number;
  /**
   * JVM flags for a long-running, loaded server (benchmarks): the full JIT and the JVM's default collector (G1). Off
   * (the default) for a development server and tests: C1 only and the serial collector start faster and weigh less.
   */
  serverJvm?: boolean;
  /** Transactions between snapshots (ZooKeeper's snapCount; default ZooKeeper's 100 000). */
  snapCount?: number;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
}

const NOT_FOUND = 'HSTORM_ERR_ZOOKEEPER_NOT_FOUND';
const START_FAILED = 'HSTORM_ERR_ZOOKEEPER_START';

/** Locates java and the ZooKeeper jars; throws HSTORM_ERR_ZOOKEEPER_NOT_FOUND saying what to install. */
export function findZooKeeper(env: NodeJS.ProcessEnv = process.env): ZooKeeperInstallation {
  const java = findJava(env);
  const candidates: { from: string; jars: () => string[] }[] = [];
  if (env.ZOOKEEPER_HOME) {
    const home = resolve(env.ZOOKEEPER_HOME);
    candidates.push({ from: `ZOOKEEPER_HOME=${home}`, jars: () => [...jarsIn(home), ...jarsIn(join(home, 'lib'))] });
  }
  candidates.push({ from: '/usr/share/zookeeper/lib', jars: () => jarsIn('/usr/share/zookeeper/lib') });
  candidates.push({
    // Debian: zookeeper.jar's manifest names its dependencies; slf4j-simple gives it a logger.
    from: '/usr/share/java/zookeeper.jar',
    jars: () =>
      existsSync('/usr/share/java/zookeeper.jar')
        ? ['/usr/share/java/zookeeper.jar', ...['/usr/share/java/slf4j-simple.jar'].filter((j) => existsSync(j))]
        : [],
  });
  for (const c of candidates) {
    const jars = c.jars();
    if (jars.some((j) => /(^|\/)zookeeper(-\d[^/]*)?\.jar$/.test(j))) return { java, classpath: jars, from: c.from };
  }
  throw new HstormError(
    NOT_FOUND,
    'no ZooKeeper installation found (looked at $ZOOKEEPER_HOME, /usr/share/zookeeper/lib, /usr/share/java/zookeeper.jar); ' +
      'install one with `apt-get install zookeeper` or set ZOOKEEPER_HOME to an unpacked Apache ZooKeeper release',
  );
}

export class ZooKeeperServer {
  private stopping: Promise<void> | undefined;
  private readonly killOnExit = (): void => {
    this.proc.kill('SIGKILL');
  };

  private constructor(
    private readonly proc: ChildProcess,
    readonly port: number,
    readonly host: string,
    /** Resolves with the exit code (or signal name) when the server process ends. */
    readonly exited: Promise<number | string>,
  ) {
    process.once('exit', this.killOnExit);
  }

  /** `host:port` to give clients. */
  get connectString(): string {
    return `${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  static async start(options: ZooKeeperServerOptions): Promise<ZooKeeperServer> {
    const install = findZooKeeper(options.env);
    const tick = options.tickTimeMs ?? 1000;
    const dataDir = resolve(options.dataDir);
    mkdirSync(dataDir, { recursive: true });
    const cfgPath = join(dataDir, 'hstorm-zoo.cfg');
    writeFileSync(cfgPath, zooConfig({ ...options, dataDir, tickTimeMs: tick }));
    const args = [
      `-Xmx${options.heapMb ?? 256}m`,
      // Startup time matters more than peak speed for a dev server.
      ...(options.serverJvm ? [] : ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1']),
      '-Djava.awt.headless=true',
      `-Dorg.slf4j.simpleLogger.defaultLogLevel=${options.logLevel ?? 'warn'}`,
      '-Dzookeeper.jmx.log4j.disable=true',
      '-cp',
      install.classpath.join(delimiter),
      'org.apache.zookeeper.server.ZooKeeperServerMain',
      cfgPath,
    ];
    const output = options.output ?? 'pipe';
    const proc = spawn(install.java, args, { stdio: ['ignore', output, output], env: options.env ?? process.env });
    let tail = '';
    const keep = (b: Buffer): void => {
      tail = (tail + b.toString('utf8')).slice(-4000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const spawnError = new Promise<Error>((res) => proc.once('error', res));
    // A process that could not be spawned never emits 'exit': count the spawn error as its end.
    const exited = Promise.race([
      new Promise<number | string>((res) => proc.once('exit', (code, signal) => res(code ?? signal ?? 'unknown'))),
      spawnError.then((e) => `spawn error: ${e.message}`),
    ]);
    const host = !options.host || options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
    const server = new ZooKeeperServer(proc, options.port, host, exited);
    options.log?.info({ port: options.port, dataDir, from: install.from, zookeeperPid: proc.pid }, 'starting ZooKeeper');

    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    let early: string | undefined;
    void exited.then((c) => (early = `exited (${c})`));
    void spawnError.then((e) => (early = `could not start ${install.java}: ${e.message}`));
    for (;;) {
      if (early) {
        await server.stop();
        throw new HstormError(START_FAILED, `ZooKeeper on port ${options.port} ${early} before answering; its output ended with:\n${tail}`);
      }
      if ((await fourLetterWord(host, options.port, 'ruok', 500)) === 'imok') return server;
      if (Date.now() > deadline) {
        await server.stop();
        throw new HstormError(START_FAILED, `ZooKeeper on port ${options.port} did not answer within ${options.startTimeoutMs ?? 30_000} ms; its output ended with:\n${tail}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs = 5000): Promise<void> {
    this.stopping ??= (async () => {
      process.removeListener('exit', this.killOnExit);
      if (this.proc.pid === undefined || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    })();
    return this.stopping;
  }
}

/**
 * The server's zoo.cfg. Autopurge is always on: hourly (ZooKeeper's smallest
 * interval), keeping the last 3 snapshots and the logs they need — without
 * it, the transaction log only grows (docs/operations.md has the figures).
 */
export function zooConfig(o: Pick<ZooKeeperServerOptions, 'port' | 'dataDir' | 'host' | 'tickTimeMs' | 'forceSync' | 'snapCount'>): string {
  const tick = o.tickTimeMs ?? 1000;
  return [
    '# written by hstorm: single-node development server',
    `tickTime=${tick}`,
    `dataDir=${o.dataDir}`,
    `clientPort=${o.port}`,
    ...(o.host ? [`clientPortAddress=${o.host}`] : []),
    `minSessionTimeout=${2 * tick}`,
    `maxSessionTimeout=${60 * tick}`,
    'maxClientCnxns=0',
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok,srvr,stat,mntr',
    // Small preallocation: a dev/test data dir should not grow 64 MB log files.
    'preAllocSize=4096',
    `forceSync=${o.forceSync === false ? 'no' : 'yes'}`,
    ...(o.snapCount === undefined ? [] : [`snapCount=${o.snapCount}`]),
    'autopurge.snapRetainCount=3',
    'autopurge.purgeInterval=1',
    '',
  ].join('\n');
}

/** Sends a ZooKeeper four-letter word; resolves with the answer, or '' on any failure or after `timeoutMs`. */
export function fourLetterWord(host: string, port: number, word: string, timeoutMs: number): Promise<string> {
  return new Promise((res) => {
    let answer = '';
    const sock = connect({ host, port });
    const done = (): void => {
      clearTimeout(timer);
      sock.destroy();
      res(answer);
    };
    const timer = setTimeout(() => {
      answer = '';
      done();
    }, timeoutMs);
    sock.on('connect', () => sock.write(word));
    sock.on('data', (b) => (answer += b.toString('utf8')));
    sock.on('end', done);
    sock.on('error', () => {
      answer = '';
      done();
    });
  });
}

function findJava(env: NodeJS.ProcessEnv): string {
  const candidates = [
    ...(env.JAVA_HOME ? [join(env.JAVA_HOME, 'bin', 'java')] : []),
    ...(env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'java')),
  ];
  const java = candidates.find((c) => existsSync(c));
  if (!java) {
    throw new HstormError(NOT_FOUND, 'ZooKeeper needs Java and none was found (looked at $JAVA_HOME and $PATH); install it with `apt-get install zookeeper` (which pulls in a JRE)');
  }
  return java;
}

function jarsIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.jar'))
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}
