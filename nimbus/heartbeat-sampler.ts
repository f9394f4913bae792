/**
 * Nimbus's reading of worker heartbeats over time: on every monitor tick it
 * reads each topology's heartbeats once and feeds the split time series (γ,
 * δ, latencies) and every sink added (the UI room's windowed statistics of
 * Storm's UI). Read-only, so it runs beside the reconcile lock; a tick that
 * finds the previous sample still running skips. All of it is memory (see
 * split-history.ts for what that means after a restart).
 */
import type { Logger } from '../common/logger.js';
import { ZkPaths } from '../common/zk-paths.js';
import type { ClusterReader } from './cluster-reader.js';
import type { HeartbeatSink } from './read-model.js';
import { SplitHistory } from './split-history.js';

export class HeartbeatSampler {
  readonly splits = new SplitHistory();
  private readonly sinks = new Set<HeartbeatSink>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly reader: ClusterReader,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Feeds `sink` from the next sample on; the function returned stops that. */
  addSink(sink: HeartbeatSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
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
      for (const sink of this.sinks) sink.retain(live);
      for (const id of ids) {
        const beats = [...(await this.reader.heartbeats(id)).values()];
        const assignment = await this.reader.assignment(id);
        this.splits.record(id, beats);
        for (const sink of this.sinks) sink.record(id, assignment, beats, this.now());
      }
    } catch (err) {
      this.log.debug({ err }, 'sampling worker heartbeats failed; the next tick retries');
    }
  }
}
