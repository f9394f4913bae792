/**
 * A whole hstorm cluster as separate OS processes, started the way an operator
 * would: `hstorm dev-zookeeper`, `hstorm nimbus --config nimbus.yaml` and one
 * `hstorm supervisor --config <id>.yaml` per node, each with its own YAML file
 * and data dir in one temporary directory, every port from freePort(). Start
 * waits until each daemon answers (ZooKeeper says it is up, nimbus serves its
 * API, a supervisor is listed by nimbus); `cli()` runs any `hstorm` command
 * against it and `cliJson()` parses its `--json` output.
 *
 * `stop()` takes everything down even when a test failed half way: daemons get
 * SIGTERM, then SIGKILL for their whole process group; workers (their own
 * process groups) are found through the supervisors' pid records and every pid
 * a test registered, and killed. An `exit` hook SIGKILLs whatever is left if
 * mocha leaves without running `after`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import type { DeclaredGpu } from '../../common/config/schema.js';
import type { SupervisorSummary, TopologyDetail, TopologySummary } from '../../nimbus/views.js';
import { freePort } from './ports.js';

export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(PACKAGE_ROOT, 'bin', 'hstorm.js');
const WORKER_ENTRY = join(PACKAGE_ROOT, 'dist', 'worker', 'main.js');

/** Where a daemon runs: a network namespace and its address there (test/faults/netns-lab.ts); default the test's own, 127.0.0.1. */
export interface DaemonHost {
  ns: string;
  address: string;
}

export interface SupervisorSpec {
  id: string;
  /** The node's namespace and address: its slots bind there and peers reach it there. */
  host?: DaemonHost;
  /** Worker ports (slots) of this node. Default 3. */
  slots?: number;
  /** Declared GPUs (`supervisor.gpus`); discovery is `declared` when given, `none` otherwise. */
  gpus?: DeclaredGpu[];
}

export interface ProcessClusterOptions {
  supervisors: SupervisorSpec[];
  /** Cluster keys for every daemon (and the workers, which get the supervisor's config). */
  config?: Record<string, unknown>;
  /** How long each daemon may take to come up. Default 60 s. */
  startTimeoutMs?: number;
  /** Where ZooKeeper and nimbus run (the partition trials' host A); default this process's namespace, 127.0.0.1. */
  coreHost?: DaemonHost;
}

import { holdFaultFor, processAlive, waitFor } from './wait-for.js';

export { waitFor, holdFaultFor, processAlive };

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}


/** True when `pid` is a running hstorm worker process (so a recycled pid is never signalled). */
export function isWorkerProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(WORKER_ENTRY);
  } catch {
    return false;
  }
}

/** One daemon started through the CLI, its output in a log file. */
export class DaemonProcess {
  private readonly child: ChildProcess;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly name: string,
    readonly args: string[],
    readonly logFile: string,
    cwd: string,
    /** A network namespace to run it in (`ip netns exec` execs it: the pid is the daemon's). */
    ns?: string,
  ) {
    const fd = openSync(logFile, 'a');
    try {
      const [cmd, argv] = ns ? ['ip', ['netns', 'exec', ns, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
      // Its own process group, so that stop() can take down what it spawned (dev-zookeeper's java).
      this.child = spawn(cmd, argv, { cwd, stdio: ['ignore', fd, fd], detached: true });
    } finally {
      closeSync(fd);
    }
    this.exited = new Promise((res) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        res(this.exit);
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  log(): string {
    try {
      return readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** The end of its log, for error messages. */
  logTail(lines = 30): string {
    return this.log().trimEnd().split('\n').slice(-lines).join('\n');
  }

  signal(sig: NodeJS.Signals): void {
    if (this.alive) process.kill(this.pid, sig);
  }

  /** kill -9 of the daemon's whole process group. */
  kill9(): void {
    if (!this.alive) return;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }

  /** SIGTERM (it shuts down in order), SIGKILL of the group after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.alive) return;
    // A stopped (SIGSTOP) process would never act on SIGTERM.
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.kill9(), graceMs);
    await this.exited;
    clearTimeout(timer);
    // Whatever it left in its group (e.g. java under dev-zookeeper) goes too.
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // group already empty
    }
  }
}

interface SupervisorEntry {
  spec: SupervisorSpec;
  ports: number[];
  configFile: string;
  localDir: string;
  proc: DaemonProcess;
}

const liveClusters = new Set<ProcessCluster>();
process.once('exit', () => {
  for (const c of liveClusters) c.killAllNow();
});

export class ProcessCluster {
  readonly zkConnect: string;
  /** Where ZooKeeper and nimbus listen. */
  readonly coreAddress: string;
  zookeeper!: DaemonProcess;
  nimbus!: DaemonProcess;
  readonly supervisors = new Map<string, SupervisorEntry>();
  readonly clientConfig: string;
  private readonly extraPids = new Set<number>();
  private stopped = false;

  private constructor(
    readonly dir: string,
    readonly zkPort: number,
    readonly nimbusPort: number,
    readonly root: string,
    private readonly options: ProcessClusterOptions,
  ) {
    this.coreAddress = options.coreHost?.address ?? '127.0.0.1';
    this.zkConnect = `${this.coreAddress}:${zkPort}`;
    this.clientConfig = join(dir, 'client.yaml');
    writeFileSync(this.clientConfig, toYaml({ 'nimbus.host': this.coreAddress, 'nimbus.http.port': nimbusPort }));
  }

  static async start(options: ProcessClusterOptions): Promise<ProcessCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'hstorm-cluster-'));
    // mkdtemp makes it 0700: a supervisor running workers as supervisor.worker.user needs them to search it.
    await chmod(dir, 0o711);
    const cluster = new ProcessCluster(dir, await freePort(), await freePort(), `/hstorm-${Math.random().toString(36).slice(2, 8)}`, options);
    liveClusters.add(cluster);
    try {
      await cluster.startZooKeeper();
      await cluster.startNimbus();
      for (const s of options.supervisors) await cluster.addSupervisor(s);
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  get url(): string {
    return `http://${this.coreAddress}:${this.nimbusPort}/api/v1`;
  }

  private get startTimeoutMs(): number {
    return this.options.startTimeoutMs ?? 60_000;
  }

  private baseConfig(): Record<string, unknown> {
    return {
      'hstorm.zookeeper.servers': [this.zkConnect],
      'hstorm.zookeeper.root': this.root,
      'nimbus.host': this.coreAddress,
      'nimbus.http.port': this.nimbusPort,
      ...this.options.config,
    };
  }

  private async waitUp(proc: DaemonProcess, what: string, check: () => Promise<boolean> | boolean): Promise<void> {
    try {
      await waitFor(what, async () => {
        if (!proc.alive) throw new Error(`${proc.name} exited (${JSON.stringify(proc.exit)}) before it was up`);
        return check();
      }, this.startTimeoutMs, 100);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- ${proc.name} log (${proc.logFile}) ---\n${proc.logTail()}`);
    }
  }

  /** Starts ZooKeeper (again, after stopZooKeeper: same port, same data dir, so every znode and session survives). */
  async startZooKeeper(): Promise<void> {
    const logFile = join(this.dir, 'zookeeper.log');
    // The log is appended to across restarts: only what this start wrote counts.
    const from = existsSync(logFile) ? readFileSync(logFile).length : 0;
    this.zookeeper = new DaemonProcess(
      'dev-zookeeper',
      ['dev-zookeeper', '--port', String(this.zkPort), '--host', this.coreAddress, '--data-dir', join(this.dir, 'zookeeper'), '--quiet'],
      logFile,
      this.dir,
      this.options.coreHost?.ns,
    );
    await this.waitUp(this.zookeeper, 'ZooKeeper', () => readFileSync(logFile).subarray(from).toString('utf8').includes('ZooKeeper is up'));
  }

  /** Stops ZooKeeper (SIGTERM, then SIGKILL of its group), leaving its data dir for startZooKeeper. */
  async stopZooKeeper(): Promise<void> {
    await this.zookeeper.stop(15_000);
  }

  /** Starts supervisor `id` again with its config (after a kill -9) and waits until nimbus lists it. */
  async restartSupervisor(id: string): Promise<void> {
    const s = this.supervisor(id);
    if (s.proc.alive) throw new Error(`supervisor ${id} is still running`);
    s.proc = this.spawnSupervisor(id, s.configFile, s.spec.host);
    await this.waitUp(s.proc, `supervisor ${id} registered again`, async () => (await this.supervisorList()).some((x) => x.id === id));
  }

  /** Starts nimbus (again, after stopNimbus: same config, same data dir) and waits until its API answers. */
  async startNimbus(): Promise<void> {
    const file = join(this.dir, 'nimbus.yaml');
    if (!existsSync(file)) writeFileSync(file, toYaml({ ...this.baseConfig(), 'hstorm.local.dir': join(this.dir, 'nimbus') }));
    this.nimbus = new DaemonProcess('nimbus', ['nimbus', '--config', file, '--bind', this.coreAddress], join(this.dir, 'nimbus.log'), this.dir, this.options.coreHost?.ns);
    await this.waitUp(this.nimbus, 'nimbus API', async () => (await fetch(`${this.url}/cluster/summary`)).ok);
  }

  async stopNimbus(): Promise<void> {
    await this.nimbus.stop();
  }

  async addSupervisor(spec: SupervisorSpec): Promise<void> {
    const ports: number[] = [];
    for (let i = 0; i < (spec.slots ?? 3); i++) ports.push(await freePort());
    const localDir = join(this.dir, spec.id);
    mkdirSync(localDir, { recursive: true });
    const configFile = join(this.dir, `${spec.id}.yaml`);
    writeFileSync(
      configFile,
      toYaml({
        ...this.baseConfig(),
        'hstorm.local.dir': localDir,
        'supervisor.id': spec.id,
        'supervisor.host': spec.host?.address ?? '127.0.0.1',
        'supervisor.slots.ports': ports,
        'supervisor.gpu.discovery': spec.gpus?.length ? 'declared' : 'none',
        ...(spec.gpus?.length ? { 'supervisor.gpus': spec.gpus } : {}),
      }),
    );
    const entry: SupervisorEntry = { spec, ports, configFile, localDir, proc: this.spawnSupervisor(spec.id, configFile, spec.host) };
    this.supervisors.set(spec.id, entry);
    await this.waitUp(entry.proc, `supervisor ${spec.id} registered`, async () => (await this.supervisorList()).some((s) => s.id === spec.id));
  }

  private spawnSupervisor(id: string, configFile: string, host: DaemonHost | undefined): DaemonProcess {
    return new DaemonProcess(`supervisor ${id}`, ['supervisor', '--config', configFile], join(this.dir, `supervisor-${id}.log`), this.dir, host?.ns);
  }

  supervisor(id: string): SupervisorEntry {
    const s = this.supervisors.get(id);
    if (!s) throw new Error(`no supervisor ${id} in this cluster`);
    return s;
  }

  /** Pids of the workers a supervisor launched and has not seen exit (its pid records). */
  workerPids(supervisorId: string): number[] {
    const s = this.supervisor(supervisorId);
    const dir = join(s.localDir, 'workers', supervisorId);
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
    const pids: number[] = [];
    for (const f of files) {
      try {
        pids.push((JSON.parse(readFileSync(join(dir, f), 'utf8')) as { pid: number }).pid);
      } catch {
        // being rewritten; the next look sees it
      }
    }
    return pids;
  }

  /** Remembers a worker pid seen in a heartbeat, so stop() kills it even if its records are gone. */
  trackPids(pids: Iterable<number>): void {
    for (const p of pids) this.extraPids.add(p);
  }

  /** kill -9 of a supervisor and of every worker it runs. Returns the worker pids killed. */
  async kill9Supervisor(id: string): Promise<number[]> {
    const s = this.supervisor(id);
    const pids = this.workerPids(id).filter(isWorkerProcess);
    s.proc.kill9();
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await s.proc.exited;
    await waitFor(`the workers of ${id} gone`, () => pids.every((p) => !processAlive(p)), 5000, 50);
    return pids;
  }

  /** kill -9 of a supervisor's process alone: its workers (their own process groups) keep running. */
  async kill9SupervisorOnly(id: string): Promise<void> {
    const s = this.supervisor(id);
    s.proc.kill9();
    await s.proc.exited;
  }

  /** Starts a supervisor again on its config and data dir (after kill9SupervisorOnly) without waiting; its log goes on in the same file. */
  respawnSupervisor(id: string): DaemonProcess {
    const s = this.supervisor(id);
    if (s.proc.alive) throw new Error(`supervisor ${id} is still running`);
    s.proc = this.spawnSupervisor(id, s.configFile, s.spec.host);
    return s.proc;
  }

  /**
   * Freezes ZooKeeper (SIGSTOP to its whole process group): every client loses
   * it at once, as in a network outage, and nothing is lost on the server;
   * thawZooKeeper (SIGCONT) ends the outage.
   */
  freezeZooKeeper(): void {
    process.kill(-this.zookeeper.pid, 'SIGSTOP');
  }

  thawZooKeeper(): void {
    process.kill(-this.zookeeper.pid, 'SIGCONT');
  }

  // ── the CLI ───────────────────────────────────────────────────────────────

  /** Runs `hstorm <args> --config <client.yaml>`; never throws on a non-zero exit. */
  cli(args: string[], timeoutMs = 60_000): Promise<CliResult> {
    return new Promise((res, rej) => {
      const child = spawn(process.execPath, [BIN, ...args, '--config', this.clientConfig], { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        rej(new Error(`hstorm ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
      }, timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        rej(err);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        res({ code, stdout, stderr });
      });
    });
  }

  /** Runs a command with `--json` and parses its output; a non-zero exit is an error with stderr in it. */
  async cliJson<T>(args: string[], timeoutMs?: number): Promise<T> {
    const r = await this.cli([...args, '--json'], timeoutMs);
    // With --json the error is `{ code, message }` on stdout (docs/errors.md).
    if (r.code !== 0) throw new Error(`hstorm ${args.join(' ')} exited ${r.code}: ${r.stdout.trim()} ${r.stderr.trim()}`);
    try {
      return JSON.parse(r.stdout) as T;
    } catch {
      throw new Error(`hstorm ${args.join(' ')} printed no JSON: ${r.stdout}`);
    }
  }

  async list(): Promise<TopologySummary[]> {
    return (await this.cliJson<{ topologies: TopologySummary[] }>(['list'])).topologies;
  }

  describe(name: string): Promise<TopologyDetail> {
    return this.cliJson<TopologyDetail>(['describe', name]);
  }

  /** `hstorm submit <module> --name <name> -c k=v…`; returns the submit result. */
  submit(module: string, name: string, conf: Record<string, unknown>): Promise<{ id: string; name: string }> {
    const flags = Object.entries(conf).flatMap(([k, v]) => ['-c', `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`]);
    return this.cliJson(['submit', module, '--name', name, ...flags]);
  }

  /** Kills every topology still on the cluster (a test that failed half way) and waits until they are gone. */
  async killAll(): Promise<void> {
    for (const t of await this.list()) {
      const r = await this.cli(['kill', t.name, '--wait', '0']);
      if (r.code !== 0 && !r.stderr.includes('NOT_FOUND')) throw new Error(`hstorm kill ${t.name} exited ${r.code}: ${r.stderr.trim()}`);
    }
  }

  /** The supervisors nimbus knows (HTTP API; the CLI has no command for them). */
  async supervisorList(): Promise<SupervisorSummary[]> {
    const res = await fetch(`${this.url}/supervisors`);
    if (!res.ok) throw new Error(`GET /supervisors: ${res.status}`);
    return ((await res.json()) as { supervisors: SupervisorSummary[] }).supervisors;
  }

  /** Logs of every daemon, for a failing test's message. */
  logs(lines = 20): string {
    const procs = [this.zookeeper, this.nimbus, ...[...this.supervisors.values()].map((s) => s.proc)].filter(Boolean);
    return procs.map((p) => `--- ${p.name} (${p.logFile}) ---\n${p.logTail(lines)}`).join('\n');
  }

  // ── teardown ──────────────────────────────────────────────────────────────

  private allWorkerPids(): number[] {
    const pids = new Set(this.extraPids);
    for (const id of this.supervisors.keys()) for (const p of this.workerPids(id)) pids.add(p);
    return [...pids].filter(isWorkerProcess);
  }

  /** Synchronous last resort (process exit): SIGKILL every daemon group and worker. */
  killAllNow(): void {
    for (const pid of this.allWorkerPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const p of [...[...this.supervisors.values()].map((s) => s.proc), this.nimbus, this.zookeeper]) p?.kill9();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const workers = this.allWorkerPids();
    // Supervisors first (they stop their workers in order), then nimbus, ZooKeeper last.
    await Promise.all([...this.supervisors.values()].map((s) => s.proc.stop(8000)));
    for (const pid of workers) {
      if (isWorkerProcess(pid)) process.kill(pid, 'SIGKILL');
    }
    await this.nimbus?.stop(8000);
    await this.zookeeper?.stop(15_000);
    liveClusters.delete(this);
    if (process.env.HSTORM_KEEP_TEST_DIRS) process.stderr.write(`cluster test dir kept: ${this.dir}\n`);
    else await rm(this.dir, { recursive: true, force: true });
  }
}
