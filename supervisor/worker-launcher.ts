/**
 * Starts and stops worker processes: `node [worker.childopts] <entry>` with
 * the WorkerLaunch in the environment, stdout/stderr appended to
 * `<logs>/<topologyId>/worker-<port>.log` (the file is opened by the
 * supervisor and handed to the child, so logs keep flowing even if the
 * supervisor goes away), and in local mode an IPC channel on which the
 * supervisor's process serves the cluster state.
 *
 * Each launch is recorded in `<pids>/<port>.json` (pid, topology, executor
 * signature, log file) so a restarted supervisor can adopt the workers its
 * previous incarnation left running, as Storm's supervisor does, instead of
 * restarting them. Each worker writes its local heartbeat to
 * `<pids>/<port>/heartbeat` (common/local-heartbeat.ts): the supervisor judges
 * a worker's health from that file, not from ZooKeeper. `<pids>/<port>/` is
 * the one directory a worker writes in, so it is the worker's own: owned by
 * supervisor.worker.user when set, 0700 — the pid records beside it stay the
 * supervisor's, out of the worker's reach.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigRecord } from '../common/config/index.js';
import type { GpuBinding } from '../common/assignment.js';
import { readLocalHeartbeat, type LocalHeartbeat } from '../common/local-heartbeat.js';
import type { Logger } from '../common/logger.js';
import { encodeWorkerLaunch, type WorkerLaunch } from '../common/worker-env.js';
import type { CurveKeys } from '../common/security/curve-keys.js';
import { WorkerLaunchError } from './errors.js';

/** What serves one local-mode child its cluster state over IPC (serveClusterStateOverIpc). */
export type IpcServe = (child: ChildProcess) => { close(): Promise<void> };

export interface WorkerLauncherOptions {
  log: Logger;
  /** Worker entry script (tests inject fixtures). */
  entry: string;
  /** Extra node flags (`worker.childopts`). */
  childopts: string[];
  /** `<hstorm.local.dir>/logs`. */
  logDir: string;
  /** `<hstorm.local.dir>/workers`: one pid record per port. */
  pidDir: string;
  /** Validated cluster config handed to every worker. */
  clusterConfig: ConfigRecord;
  /** Local mode: serve the in-memory store to each child over IPC. Absent: workers connect to ZooKeeper. */
  ipc?: IpcServe;
  /** Extra environment for workers (tests). */
  env?: Record<string, string>;
  /** Run workers as this user and group (supervisor.worker.user, worker-user.ts). */
  runAs?: { uid: number; gid: number } | null;
  /** The node that runs workers (default: this process's, process.execPath; tests inject one that cannot start). */
  execPath?: string;
}

export interface WorkerSpec {
  topologyId: string;
  supervisorId: string;
  host: string;
  port: number;
  modulePath: string;
  gpu: GpuBinding | null;
  /** The topology's CURVE key pair, when hstorm.messaging.curve is on. */
  curve?: CurveKeys | null;
  /** The supervisor's fingerprint of the worker's executors and GPU: a restarted supervisor adopts the worker only if it still matches. */
  signature?: string;
}

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface PidRecord {
  pid: number;
  topologyId: string;
  entry: string;
  startedAt: number;
  /** Absent in records written before adoption existed: such a worker is stopped, not adopted. */
  signature?: string;
  port?: number;
  logFile?: string;
  /** Where the worker writes its heartbeat; absent in records written before it had a directory of its own (`<pids>/<port>.beat`). */
  beatFile?: string;
}

/** A worker process the supervisor runs: one it launched, or one it adopted from its previous incarnation. */
export interface WorkerProcess {
  readonly pid: number;
  readonly startedAt: number;
  readonly logFile: string;
  readonly alive: boolean;
  readonly exited: Promise<WorkerExit>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<WorkerExit>;
}

/** A worker left running by a previous supervisor on this data dir, found through its pid record. */
export interface LeftoverWorker {
  port: number;
  topologyId: string;
  signature: string;
  proc: WorkerProcess;
}

/** One running worker process. */
export class LaunchedWorker implements WorkerProcess {
  readonly startedAt = Date.now();
  exit: WorkerExit | null = null;
  readonly exited: Promise<WorkerExit>;

  constructor(
    readonly spec: WorkerSpec,
    readonly child: ChildProcess,
    readonly logFile: string,
    private readonly ipcServer: { close(): Promise<void> } | null,
    private readonly onGone: () => void,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.ipcServer?.close().catch(() => undefined);
        this.onGone();
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** SIGTERM (the worker drains and writes a last heartbeat), SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs: number): Promise<WorkerExit> {
    if (this.exit) return this.exit;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.exit) this.child.kill('SIGKILL');
    }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (!this.exit) this.child.kill('SIGKILL');
  }
}

export class WorkerLauncher {
  /** Heartbeat file of the worker on each port, where it differs from the default (an adopted worker of an older supervisor). */
  private readonly beatFiles = new Map<number, string>();

  constructor(private readonly o: WorkerLauncherOptions) {}

  /** Where worker logs go: `<logDir>/<topologyId>/worker-<port>.log`. */
  get logDir(): string {
    return this.o.logDir;
  }

  logFileOf(topologyId: string, port: number): string {
    return join(this.o.logDir, topologyId, `worker-${port}.log`);
  }

  launch(spec: WorkerSpec): LaunchedWorker {
    const logFile = this.logFileOf(spec.topologyId, spec.port);
    const beatFile = this.heartbeatFileFor(spec);
    const launch: WorkerLaunch = {
      topologyId: spec.topologyId,
      supervisorId: spec.supervisorId,
      host: spec.host,
      port: spec.port,
      modulePath: spec.modulePath,
      state: this.o.ipc ? 'ipc' : 'zookeeper',
      clusterConfig: this.o.clusterConfig,
      gpu: spec.gpu,
      ...(spec.curve && { curve: spec.curve }),
      localHeartbeatFile: beatFile,
    };
    let fd: number;
    try {
      mkdirSync(join(this.o.logDir, spec.topologyId), { recursive: true });
      fd = openSync(logFile, 'a');
    } catch (err) {
      throw new WorkerLaunchError(`cannot open worker log ${logFile}: ${(err as Error).message}`, spec.topologyId, spec.port, { cause: err });
    }
    let child: ChildProcess;
    try {
      child = spawn(this.o.execPath ?? process.execPath, [...this.o.childopts, this.o.entry], {
        env: { ...process.env, ...this.o.env, ...encodeWorkerLaunch(launch) },
        stdio: this.o.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
        // Its own process group: a terminal's Ctrl-C reaches only the daemon, which then stops its
        // workers in order (SIGTERM, last heartbeat) instead of all of them dying mid-batch at once.
        detached: true,
        ...(this.o.runAs && { uid: this.o.runAs.uid, gid: this.o.runAs.gid }),
      });
    } catch (err) {
      throw new WorkerLaunchError(`cannot start worker on port ${spec.port}: ${(err as Error).message}`, spec.topologyId, spec.port, { cause: err });
    } finally {
      closeSync(fd);
    }
    // A spawn that fails (EACCES: a worker user who cannot run this node; ENOENT) reports through 'error' and never
    // through 'exit' — Node sets exitCode to the negative errno — so no process exists and none will exit: turn it
    // into an exit, with the reason in the worker's log, where the supervisor reads why a worker died.
    child.once('error', (err) => {
      this.o.log.warn({ err, port: spec.port, topology: spec.topologyId }, 'worker process error');
      if (child.pid !== undefined) return;
      const as = this.o.runAs ? ` as uid ${this.o.runAs.uid} (supervisor.worker.user)` : '';
      try {
        appendFileSync(logFile, `hstorm: cannot start the worker process${as}: ${err.message}\n`);
      } catch {
        // the log is gone: the exit alone still reaches the supervisor
      }
      child.emit('exit', null, null);
    });
    const server = this.o.ipc && child.pid !== undefined ? this.o.ipc(child) : null;
    if (child.pid !== undefined) this.recordPid(spec, child.pid, logFile, beatFile);
    const w = new LaunchedWorker(spec, child, logFile, server, () => this.forgetPid(spec.port, child.pid));
    this.o.log.info({ topology: spec.topologyId, port: spec.port, pid: child.pid, gpu: spec.gpu?.gpuId ?? null, logFile }, 'worker started');
    return w;
  }

  /** Where the worker on `port` writes its local heartbeat. */
  localHeartbeatFileOf(port: number): string {
    return this.beatFiles.get(port) ?? join(this.o.pidDir, String(port), 'heartbeat');
  }

  /**
   * The worker's own directory, made (again) before each launch: owned by the worker user, 0700, so the worker can
   * write its heartbeat (a temp file renamed over the last: it needs the directory, not only the file) and no one
   * but it and the supervisor can read or replace what it writes.
   */
  private heartbeatFileFor(spec: WorkerSpec): string {
    this.beatFiles.delete(spec.port);
    const dir = join(this.o.pidDir, String(spec.port));
    try {
      // The parents first, with the usual mode: the worker user must search them (a recursive mkdir gives each the leaf's mode).
      mkdirSync(this.o.pidDir, { recursive: true });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      if (this.o.runAs) chownSync(dir, this.o.runAs.uid, this.o.runAs.gid);
    } catch (err) {
      throw new WorkerLaunchError(`cannot prepare the worker directory ${dir}: ${(err as Error).message}`, spec.topologyId, spec.port, { cause: err });
    }
    return this.localHeartbeatFileOf(spec.port);
  }

  /** The last local heartbeat of the worker on `port` (whichever pid wrote it), or null. */
  localHeartbeatOf(port: number): LocalHeartbeat | null {
    return readLocalHeartbeat(this.localHeartbeatFileOf(port));
  }

  private recordPid(spec: WorkerSpec, pid: number, logFile: string, beatFile: string): void {
    const rec: PidRecord = { pid, topologyId: spec.topologyId, entry: this.o.entry, startedAt: Date.now(), port: spec.port, logFile, beatFile, ...(spec.signature !== undefined && { signature: spec.signature }) };
    try {
      mkdirSync(this.o.pidDir, { recursive: true });
      writeFileSync(join(this.o.pidDir, `${spec.port}.json`), JSON.stringify(rec));
    } catch (err) {
      this.o.log.warn({ err }, 'could not record a worker pid');
    }
  }

  private forgetPid(port: number, pid: number | undefined): void {
    const file = join(this.o.pidDir, `${port}.json`);
    try {
      const rec = JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
      if (rec.pid === pid) rmSync(file, { force: true });
    } catch {
      // nothing recorded, or already replaced by a newer launch
    }
  }

  /**
   * The workers a previous supervisor on this data dir left running, on one of
   * `ports`, whose records say what they run: the caller adopts them (or stops
   * them when they are no longer assigned). Any other leftover is killed, as
   * reapLeftovers does. A pid counts only if its command line still names the
   * worker entry, so a recycled pid is never taken for a worker.
   */
  async adoptLeftovers(ports: readonly number[]): Promise<LeftoverWorker[]> {
    const out: LeftoverWorker[] = [];
    const others: string[] = [];
    for (const f of this.pidFiles()) {
      const file = join(this.o.pidDir, f);
      let rec: PidRecord;
      try {
        rec = JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
      } catch {
        others.push(f);
        continue;
      }
      const { port, signature, logFile } = rec;
      if (port === undefined || signature === undefined || logFile === undefined || !ports.includes(port) || !isWorkerProcess(rec.pid, rec.entry)) {
        others.push(f);
        continue;
      }
      const proc = new AdoptedWorker(rec.pid, rec.entry, rec.startedAt, logFile, () => this.forgetPid(port, rec.pid));
      // It goes on writing where it was told at its launch.
      this.beatFiles.set(port, rec.beatFile ?? join(this.o.pidDir, `${port}.beat`));
      out.push({ port, topologyId: rec.topologyId, signature, proc });
    }
    await this.reap(others);
    return out;
  }

  private pidFiles(): string[] {
    try {
      return readdirSync(this.o.pidDir).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
  }

  /**
   * Kills workers a previous supervisor on this data dir left running. A pid
   * is only killed if its command line still names the worker entry, so a
   * recycled pid is never hit.
   */
  async reapLeftovers(): Promise<number> {
    return this.reap(this.pidFiles());
  }

  private async reap(files: readonly string[]): Promise<number> {
    let reaped = 0;
    for (const f of files) {
      const file = join(this.o.pidDir, f);
      try {
        const rec = JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
        if (isWorkerProcess(rec.pid, rec.entry)) {
          this.o.log.warn({ pid: rec.pid, topology: rec.topologyId }, 'stopping a worker left by a previous supervisor');
          process.kill(rec.pid, 'SIGKILL');
          await waitGone(rec.pid, 5000);
          reaped++;
        }
      } catch {
        // unreadable record or process already gone
      }
      rmSync(file, { force: true });
    }
    return reaped;
  }
}

/**
 * A worker this supervisor did not start: no exit event reaches it, so its
 * exit is noticed by polling the pid (and its command line, against reuse).
 */
class AdoptedWorker implements WorkerProcess {
  exit: WorkerExit | null = null;
  readonly exited: Promise<WorkerExit>;
  private readonly poll: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    private readonly entry: string,
    readonly startedAt: number,
    readonly logFile: string,
    onGone: () => void,
  ) {
    let done!: (e: WorkerExit) => void;
    this.exited = new Promise((resolve) => (done = resolve));
    this.poll = setInterval(() => {
      if (isWorkerProcess(this.pid, this.entry)) return;
      clearInterval(this.poll);
      this.exit = { code: null, signal: null };
      onGone();
      done(this.exit);
    }, ADOPTED_POLL_MS);
    this.poll.unref();
  }

  get alive(): boolean {
    return this.exit === null;
  }

  async stop(graceMs: number): Promise<WorkerExit> {
    if (this.exit) return this.exit;
    signal(this.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (!this.exit && isWorkerProcess(this.pid, this.entry)) signal(this.pid, 'SIGKILL');
    }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** How often an adopted worker's pid is checked. */
const ADOPTED_POLL_MS = 200;

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

function isWorkerProcess(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(entry);
  } catch {
    // No /proc (not Linux) or no such process: only signal 0 can tell, and it cannot tell a recycled pid.
    try {
      process.kill(pid, 0);
      return process.platform !== 'linux';
    } catch {
      return false;
    }
  }
}

async function waitGone(pid: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
