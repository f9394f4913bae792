/**
 * The operator's verbs on a running topology — kill, activate, deactivate,
 * rebalance — as StormBase status transitions, and the final removal of a
 * killed topology once its wait has passed. Workers react to the status
 * through their StormBase watch (spouts stop on `killed`/`inactive`/
 * `rebalancing`); supervisors react to the assignment disappearing.
 */
import { checkKey, withDefaults } from '../common/config/index.js';
import { ConfigError } from '../common/errors.js';
import type { ClusterState } from '../common/cluster-state.js';
import type { Logger } from '../common/logger.js';
import { LOG_LEVELS, type LogLevelName, type StormBase, type TopologyStatus } from '../common/storm-base.js';
import { withParallelism } from '../common/topology-def.js';
import { ZkPaths } from '../common/zk-paths.js';
import type { BlobStore } from './blob-store.js';
import type { ClusterReader } from './cluster-reader.js';
import { BadRequestError, TopologyNotFoundError, TopologyStateError } from './errors.js';
import { putJson } from '../common/cluster-state/json-node.js';
import { removeNode } from '../common/cluster-state/state-ops.js';

export interface TopologyAdminDeps {
  state: ClusterState;
  reader: ClusterReader;
  blobs: BlobStore | null;
  log: Logger;
  /** Runs `fn` under nimbus's lock (one operation or round at a time). */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** A reconcile round; the caller already holds the lock. */
  round: (forced: ReadonlySet<string>) => Promise<void>;
  /** Asks for a round soon (takes the lock itself). */
  requestRound: () => void;
}

export class TopologyAdmin {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Rebalances this nimbus is in the middle of: id → status to restore. */
  private readonly rebalancing = new Map<string, Exclude<TopologyStatus, 'killed' | 'rebalancing'>>();

  constructor(private readonly d: TopologyAdminDeps) {}

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  find(nameOrId: string): Promise<StormBase> {
    return this.d.reader.find(nameOrId);
  }

  kill(name: string, waitSecs?: number): Promise<StormBase> {
    if (waitSecs !== undefined && !(Number.isFinite(waitSecs) && waitSecs >= 0)) {
      throw new BadRequestError(`invalid wait ${JSON.stringify(waitSecs)}; allowed: a number of seconds >= 0`, 'waitSecs');
    }
    return this.d.exclusive(async () => {
      const storm = await this.find(name);
      const wait = waitSecs ?? withDefaults(storm.config)['topology.message.timeout.secs'];
      const killed: StormBase = { ...storm, status: 'killed', killWaitSecs: wait, killedAt: Date.now() };
      await putJson(this.d.state, ZkPaths.storm(storm.id), killed);
      this.rebalancing.delete(storm.id);
      this.d.log.info({ topology: storm.id, waitSecs: wait }, 'topology killed; removing it after the wait');
      this.clearTimer(storm.id);
      if (wait === 0) {
        await this.d.round(new Set());
      } else {
        this.timers.set(
          storm.id,
          setTimeout(() => {
            this.timers.delete(storm.id);
            this.d.requestRound();
          }, wait * 1000 + 5),
        );
      }
      return killed;
    });
  }

  /** `hstorm set-log-level`: every worker of the topology logs at `level` (for `timeoutSecs`, or until reset); 'reset' goes back to the workers' own level. */
  async setLogLevel(name: string, level: string, timeoutSecs?: number): Promise<StormBase> {
    if (level !== 'reset' && !(LOG_LEVELS as readonly string[]).includes(level)) {
      throw new BadRequestError(`invalid log level ${JSON.stringify(level)}; allowed: ${LOG_LEVELS.join(', ')}, reset`, 'level');
    }
    if (timeoutSecs !== undefined && !(Number.isFinite(timeoutSecs) && timeoutSecs > 0)) {
      throw new BadRequestError(`invalid timeout ${JSON.stringify(timeoutSecs)}; allowed: a number of seconds > 0`, 'timeoutSecs');
    }
    return this.d.exclusive(async () => {
      const storm = await this.find(name);
      const { logLevel: _old, ...rest } = storm;
      const next: StormBase =
        level === 'reset' ? rest : { ...rest, logLevel: { level: level as LogLevelName, until: timeoutSecs !== undefined ? Date.now() + timeoutSecs * 1000 : null } };
      await putJson(this.d.state, ZkPaths.storm(storm.id), next);
      this.d.log.info({ topology: storm.id, level, timeoutSecs }, 'topology log level set');
      return next;
    });
  }

  setActive(name: string, active: boolean): Promise<StormBase> {
    return this.d.exclusive(async () => {
      const storm = await this.find(name);
      const verb = active ? 'activate' : 'deactivate';
      if (storm.status === 'killed' || storm.status === 'rebalancing') {
        throw new TopologyStateError(`cannot ${verb} topology "${storm.name}": it is ${storm.status}`, storm.name, storm.status);
      }
      const status: TopologyStatus = active ? 'active' : 'inactive';
      if (storm.status === status) return storm;
      const next: StormBase = { ...storm, status };
      await putJson(this.d.state, ZkPaths.storm(storm.id), next);
      this.d.log.info({ topology: storm.id, status }, `topology ${verb}d`);
      return next;
    });
  }

  rebalance(name: string, opts: RebalanceOptions): Promise<StormBase> {
    if (opts.waitSecs !== undefined && !(Number.isFinite(opts.waitSecs) && opts.waitSecs >= 0)) {
      throw new BadRequestError(`invalid wait ${JSON.stringify(opts.waitSecs)}; allowed: a number of seconds >= 0`, 'waitSecs');
    }
    return this.d.exclusive(async () => {
      const storm = await this.find(name);
      if (storm.status === 'killed' || storm.status === 'rebalancing') {
        throw new TopologyStateError(`cannot rebalance topology "${storm.name}": it is ${storm.status}`, storm.name, storm.status);
      }
      const config = { ...storm.config };
      if (opts.workers !== undefined) {
        config['topology.workers'] = checkKey('topology.workers', opts.workers);
        const gpuWorkers = withDefaults(storm.config)['topology.gpu.workers'];
        if (gpuWorkers > opts.workers) {
          throw new ConfigError(
            `invalid value for topology.workers: ${opts.workers}; allowed: at least topology.gpu.workers (${gpuWorkers})`,
            'topology.workers',
            opts.workers,
          );
        }
      }
      const parallelism = { ...storm.parallelismOverrides, ...checkExecutors(storm, opts.executors ?? {}) };
      const def = withParallelism(storm.def, parallelism);
      this.rebalancing.set(storm.id, storm.status);
      const during: StormBase = {
        ...storm,
        status: 'rebalancing',
        config,
        def,
        ...(Object.keys(parallelism).length > 0 && { parallelismOverrides: parallelism }),
      };
      await putJson(this.d.state, ZkPaths.storm(storm.id), during);
      this.d.log.info({ topology: storm.id, workers: config['topology.workers'] }, 'rebalancing topology');
      const wait = opts.waitSecs ?? 0;
      if (wait === 0) return this.finishRebalance(storm.id);
      this.clearTimer(storm.id);
      this.timers.set(
        storm.id,
        setTimeout(() => {
          this.timers.delete(storm.id);
          this.d.exclusive(() => this.finishRebalance(storm.id)).catch((err: unknown) => this.d.log.warn({ err, topology: storm.id }, 'rebalance failed'));
        }, wait * 1000),
      );
      return during;
    });
  }

  /** Caller holds the lock. */
  private async finishRebalance(id: string): Promise<StormBase> {
    const restore = this.rebalancing.get(id) ?? 'active';
    await this.d.round(new Set([id]));
    this.rebalancing.delete(id);
    const storm = await this.d.reader.storm(id);
    if (!storm || storm.status !== 'rebalancing') return storm ?? Promise.reject(new TopologyNotFoundError(id));
    const next: StormBase = { ...storm, status: restore };
    await putJson(this.d.state, ZkPaths.storm(id), next);
    this.d.log.info({ topology: id, status: restore }, 'rebalance done');
    return next;
  }

  /** Topologies left `rebalancing` by an earlier nimbus (it stopped mid-way): place them afresh. */
  interruptedRebalances(storms: Iterable<StormBase>): string[] {
    const ids: string[] = [];
    for (const s of storms) if (s.status === 'rebalancing' && !this.rebalancing.has(s.id)) ids.push(s.id);
    return ids;
  }

  /** Caller holds the lock and has just placed them. */
  async finishInterruptedRebalances(storms: Iterable<StormBase>): Promise<void> {
    for (const id of this.interruptedRebalances(storms)) {
      const storm = await this.d.reader.storm(id);
      if (storm?.status !== 'rebalancing') continue;
      await putJson(this.d.state, ZkPaths.storm(id), { ...storm, status: 'active' } satisfies StormBase);
      this.d.log.info({ topology: id }, 'finished a rebalance an earlier nimbus left half-way');
    }
  }

  removalDue(storm: StormBase, now: number): boolean {
    return storm.status === 'killed' && (storm.killedAt ?? 0) + (storm.killWaitSecs ?? 0) * 1000 <= now;
  }

  /** Removes everything of a killed topology; the assignment first, so supervisors stop its workers at once. Caller holds the lock. */
  async remove(storm: StormBase): Promise<void> {
    this.clearTimer(storm.id);
    await removeNode(this.d.state, ZkPaths.assignment(storm.id));
    await removeNode(this.d.state, ZkPaths.workerbeatsOf(storm.id), true);
    await removeNode(this.d.state, ZkPaths.signalsOf(storm.id), true);
    await removeNode(this.d.state, ZkPaths.storm(storm.id));
    if (storm.code.kind === 'bundle' && this.d.blobs) {
      const sha = storm.code.sha256;
      const others = [...(await this.d.reader.storms()).values()].some((s) => s.code.kind === 'bundle' && s.code.sha256 === sha);
      if (!others) await this.d.blobs.delete(sha);
    }
    this.d.log.info({ topology: storm.id }, 'topology removed');
  }

  private clearTimer(id: string): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }
}

export interface RebalanceOptions {
  workers?: number;
  waitSecs?: number;
  /** Storm's `rebalance -e component=N`: new parallelism per component (tasks are renumbered; state in tasks is not carried over). */
  executors?: Record<string, number>;
}

/** The components named exist, are not system ones, and get an integer ≥ 1. */
function checkExecutors(storm: StormBase, executors: Record<string, number>): Record<string, number> {
  for (const [id, n] of Object.entries(executors)) {
    if (!storm.def.components.some((c) => c.id === id)) {
      throw new BadRequestError(
        `cannot rebalance component "${id}" of topology "${storm.name}": no such component; allowed: ${storm.def.components.map((c) => c.id).join(', ')}`,
        'executors',
      );
    }
    if (!Number.isInteger(n) || n < 1) throw new BadRequestError(`invalid executors for "${id}": ${JSON.stringify(n)}; allowed: an integer >= 1`, 'executors');
  }
  return executors;
}
