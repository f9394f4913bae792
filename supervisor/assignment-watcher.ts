/**
 * Keeps a supervisor's copy of every assignment current: a child watch on
 * /assignments plus a data watch per assignment, each re-armed when it fires,
 * and `onChange` called after every update. Each armed watch carries a token;
 * a watcher whose token is no longer current (the session expired and we
 * re-armed, or a refresh replaced it) is ignored, so watch chains never
 * multiply. A corrupt assignment is logged and the last good copy kept —
 * workers keep running rather than being stopped on bad data.
 */
import { isStateError, type ClusterState } from '../common/cluster-state.js';
import { decodeJson } from '../common/cluster-state/json-node.js';
import type { Assignment } from '../common/assignment.js';
import { RateLimitedLog, type Logger } from '../common/logger.js';
import { assignmentSchema } from '../common/record-schemas.js';
import { ZkPaths } from '../common/zk-paths.js';

export class AssignmentWatcher {
  readonly assignments = new Map<string, Assignment>();
  private readonly dataTokens = new Map<string, number>();
  private childToken: number | null = null;
  private nextToken = 1;
  private stopped = false;
  private readonly warn: RateLimitedLog;

  constructor(
    private readonly state: ClusterState,
    private readonly onChange: () => void,
    log: Logger,
  ) {
    this.warn = new RateLimitedLog(log);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.refresh();
  }

  stop(): void {
    this.stopped = true;
    this.dataTokens.clear();
    this.childToken = null;
  }

  /** Forget every armed watch (after a session expiry they are gone); the next refresh arms new ones. */
  disarm(): void {
    this.dataTokens.clear();
    this.childToken = null;
  }

  /** Re-lists and re-reads everything; arms watches that are not armed. */
  async refresh(): Promise<void> {
    if (this.stopped) return;
    let watcher: (() => void) | undefined;
    if (this.childToken === null) {
      const token = (this.childToken = this.nextToken++);
      watcher = () => {
        if (this.stopped || this.childToken !== token) return;
        this.childToken = null;
        this.refresh().then(this.onChange, (err: unknown) => this.warn.warn({ err }, 'could not re-read assignments; the monitor will retry'));
      };
    }
    let ids: string[];
    try {
      ids = await this.state.children(ZkPaths.assignments, watcher);
    } catch (err) {
      if (watcher) this.childToken = null;
      if (isStateError(err, 'NO_NODE')) ids = [];
      else throw err;
    }
    const listed = new Set(ids);
    for (const id of [...this.assignments.keys()]) {
      if (!listed.has(id)) {
        this.assignments.delete(id);
        this.dataTokens.delete(id);
      }
    }
    for (const id of ids) await this.readOne(id, !this.dataTokens.has(id));
  }

  private async readOne(id: string, arm: boolean): Promise<void> {
    const path = ZkPaths.childOf(ZkPaths.assignments, id);
    let watcher: ((e: { type: string }) => void) | undefined;
    if (arm) {
      const token = this.nextToken++;
      this.dataTokens.set(id, token);
      watcher = (event) => {
        if (this.stopped || this.dataTokens.get(id) !== token) return;
        this.dataTokens.delete(id);
        if (event.type === 'deleted') {
          this.assignments.delete(id);
          this.onChange();
          return;
        }
        this.readOne(id, true).then(this.onChange, (err: unknown) => this.warn.warn({ err, topology: id }, 'could not re-read an assignment'));
      };
    }
    try {
      const { data } = await this.state.get(path, watcher);
      this.assignments.set(id, decodeJson(path, data, assignmentSchema));
    } catch (err) {
      if (isStateError(err, 'NO_NODE')) {
        this.assignments.delete(id);
        this.dataTokens.delete(id);
      } else if (isStateError(err, 'CORRUPT')) {
        this.warn.warn({ path, err: err.message }, 'ignoring a corrupt assignment (keeping the last good one)');
      } else {
        this.dataTokens.delete(id);
        throw err;
      }
    }
  }
}
