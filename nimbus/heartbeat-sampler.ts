/**
 * Nimbus's reading of the workers' metrics records (their WorkerHeartbeat in
 * ZooKeeper, written every `topology.stats.report.secs`). On every monitor
 * tick it looks at each topology's records through the watched cache
 * (common/cluster-state/watched-node-cache.ts): a record that did not change
 * since the last look costs nothing — no request, no parse — and one that did
 * is read once (all of them concurrently), parsed once, and handed on:
 *
 * - to the heartbeat tracker as news of its worker (a record that changed);
 * - to the split time series (γ, δ, latencies) and every sink added (the UI
 *   room's windowed statistics), which take each changed record on its own.
 *
 * Read-only, so it runs beside the reconcile lock. A tick that finds the
 * previous sample still running is skipped and counted, never queued. All of
 * it is memory (see split-history.ts for what that means after a restart).
 */
import type { WatchedNodeCache } from '../common/cluster-state/watched-node-cache.js';
import { Histogram } from '../common/histogram.js';
import type { Logger } from '../common/logger.js';
import { mapConcurrent } from '../common/map-concurrent.js';
import { workerHeartbeatSchema, type ParsedWorkerHeartbeat } from '../common/record-schemas.js';
import { parseWorkerbeatName, ZkPaths } from '../common/zk-paths.js';
import { READ_CONCURRENCY, type ClusterReader } from './cluster-reader.js';
import type { HeartbeatTracker, RecordSeen } from './heartbeat-tracker.js';
import type { HeartbeatSink } from './read-model.js';
import { SplitHistory } from './split-history.js';

/** Topologies sampled at once (each reads its records concurrently). */
const TOPOLOGY_CONCURRENCY = 8;

export interface SamplerCounts {
  /** Samples run, and ticks skipped because the previous one still ran. */
  samples: number;
  skipped: number;
  /** Records that changed and were parsed. */
  records: number;
}

export class HeartbeatSampler {
  readonly splits = new SplitHistory();
  private readonly sinks = new Set<HeartbeatSink>();
  private running: Promise<void> | null = null;
  /** Topology → record name → the node signature last handed on. */
  private readonly handed = new Map<string, Map<string, string>>();
  readonly counts: SamplerCounts = { samples: 0, skipped: 0, records: 0 };
  /** How long samples took (ms), and the latest. */
  readonly durations = new Histogram();
  lastMs: number | null = null;

  constructor(
    /** A reader over `cache` (its corrupt-node accounting is shared with the read model's views). */
    private readonly reader: ClusterReader,
    private readonly cache: WatchedNodeCache,
    private readonly tracker: HeartbeatTracker,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Feeds `sink` from the next sample on; the function returned stops that. */
  addSink(sink: HeartbeatSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** Starts a sample unless one is running (then the tick is skipped and counted). */
  tick(): void {
    if (this.running) {
      this.counts.skipped++;
      return;
    }
    this.running = this.sample().finally(() => (this.running = null));
  }

  /** Resolves once no sample runs (shutdown). */
  async idle(): Promise<void> {
    await this.running;
  }

  async sample(): Promise<void> {
    const t0 = performance.now();
    try {
      const now = this.now();
      const ids = await this.reader.childrenOf(ZkPaths.storms);
      const live = new Set(ids);
      this.splits.retain(live);
      for (const sink of this.sinks) sink.retain(live);
      for (const id of this.handed.keys()) if (!live.has(id)) this.handed.delete(id);
      await mapConcurrent(ids, TOPOLOGY_CONCURRENCY, (id) => this.sampleTopology(id, now));
      this.counts.samples++;
    } catch (err) {
      this.log.debug({ err }, 'sampling worker metrics records failed; the next tick retries');
    } finally {
      this.lastMs = performance.now() - t0;
      this.durations.record(this.lastMs);
    }
  }

  private async sampleTopology(id: string, now: number): Promise<void> {
    const dir = ZkPaths.workerbeatsOf(id);
    const names = await this.cache.children(dir);
    const nodes = await mapConcurrent(names, READ_CONCURRENCY, (name) => this.cache.get(ZkPaths.childOf(dir, name)).catch(() => null));
    let handed = this.handed.get(id);
    if (!handed) this.handed.set(id, (handed = new Map()));
    const seen: RecordSeen[] = [];
    const fresh: ParsedWorkerHeartbeat[] = [];
    const listed = new Set(names);
    for (const name of handed.keys()) if (!listed.has(name)) handed.delete(name);
    names.forEach((name, i) => {
      const node = nodes[i];
      const slot = parseWorkerbeatName(name);
      if (!node || !slot) return;
      const sig = `${node.stat.version}/${node.stat.mtime}/${node.stat.ctime}`;
      // Any change of the node is news of the worker, whatever it holds (a record nimbus cannot parse included).
      seen.push({ ...slot, sig });
      if (handed.get(name) === sig) return;
      handed.set(name, sig);
      const beat = this.reader.decode(ZkPaths.childOf(dir, name), node.data, workerHeartbeatSchema);
      if (beat) fresh.push(beat);
    });
    this.tracker.noteRecords(id, seen, now);
    if (fresh.length === 0) return;
    this.counts.records += fresh.length;
    const assignment = await this.reader.assignment(id);
    this.splits.record(id, fresh);
    for (const sink of this.sinks) sink.record(id, assignment, fresh, now);
  }
}
