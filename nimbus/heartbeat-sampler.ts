/**
 * Nimbus's reading of worker heartbeats over time: on every monitor tick it
 * reads each topology's heartbeats once and feeds the split time series (γ,
 * δ, latencies) and the windowed statistics of Storm's UI. Read-only, so it
 * runs beside the reconcile lock; a tick that finds the previous sample still
 * running skips. All of it is nimbus memory (see split-history.ts and
 * stats/topology-stats.ts for what that means after a restart).
 */
import type { Logger } from '../common/logger.js';
import { ZkPaths } from '../common/zk-paths.js';
import type { ClusterReader } from './cluster-reader.js';
import { SplitHistory } from './split-history.js';
import { StatsHistory } from './stats/topology-stats.js';

export class HeartbeatSampler {
  readonly splits = new SplitHistory();
  readonly stats: StatsHistory;
  private running: Promise<void> | null = null;

  constructor(
    private readonly reader: ClusterReader,
    private readonly log: Logger,
    startedAt: number,
    private readonly now: () => number = Date.now,
  ) {
    this.stats = new StatsHistory({ startedAt });
  }

  /** Starts a sample unless one is running. */
  tick(): void {
    this.running ??= this.sample().finally(() => (this.running = null));
  }

  /** Resolves once no sample runs (shutdown). */
  async idle(): Promise<void> {
    await this.running;
  }

  async sample(): Promise<void> {
    try {
      const ids = await this.reader.childrenOf(ZkPaths.storms);
      const live = new Set(ids);
      this.splits.retain(live);
      this.stats.retain(live);
      for (const id of ids) {
        const beats = [...(await this.reader.heartbeats(id)).values()];
        const assignment = await this.reader.assignment(id);
        this.splits.record(id, beats);
        this.stats.record(id, assignment, beats, this.now());
      }
    } catch (err) {
      this.log.debug({ err }, 'sampling worker heartbeats failed; the next tick retries');
    }
  }
}
