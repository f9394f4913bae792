/**
 * Nimbus's read model (read-model.ts): builds the views from what the store
 * holds (through the ClusterReader), the heartbeat tracker's liveness and
 * the heartbeat sampler's memory. It reads and never writes, so it needs
 * no lock: each view is one consistent-enough look, as Storm's UI has.
 *
 * It is also the one place where what is shown loses its secrets: the
 * cluster config and every topology record (its config, its module's and
 * each component's) leave here redacted (common/security/redaction.ts), so
 * no view — hstorm's API, Storm's UI API, the web UI, /metrics, describe —
 * can serve a password, whatever it picks from them.
 */
import { workerKey } from '../common/assignment.js';
import type { ClusterState } from '../common/cluster-state.js';
import type { Config } from '../common/config/index.js';
import { packageVersion } from '../common/package-root.js';
import { redactConfig } from '../common/security/redaction.js';
import type { StormBase } from '../common/storm-base.js';
import type { ClusterReader } from './cluster-reader.js';
import { clusterResources, queueOrder, queueView, totalsOf } from './fairness-views.js';
import type { HeartbeatSampler } from './heartbeat-sampler.js';
import type { HeartbeatTracker } from './heartbeat-tracker.js';
import type { NimbusSettings } from './nimbus-config.js';
import type { ClusterReadModel, ClusterSnapshot, HeartbeatSink, NimbusHealth, TopologyHoldings, TopologySnapshot } from './read-model.js';
import { detailHoldings, supervisorSummaries, topologyDetail, topologyHoldings, topologySummary, usedSlotKeys } from './topology-views.js';
import type { ClusterSummary, QueueListing, SupervisorSummary, TopologyDetail, TopologySummary, TopologyTimeseries } from './views.js';

export interface NimbusReadModelDeps {
  state: ClusterState;
  reader: ClusterReader;
  tracker: HeartbeatTracker;
  sampler: HeartbeatSampler;
  config: Config;
  settings: NimbusSettings;
  /** Where nimbus's HTTP API is advertised; absent in local mode. */
  advertise: { host: string; port: number } | undefined;
  startedAt: number;
  health: () => NimbusHealth;
}

export class NimbusReadModel implements ClusterReadModel {
  readonly startedAt: number;
  private readonly shownConfig: Config;
  /** Each record read, redacted once (the reader's cache hands back the same record until its node changes). */
  private readonly shownStorms = new WeakMap<StormBase, StormBase>();

  constructor(private readonly d: NimbusReadModelDeps) {
    this.startedAt = d.startedAt;
    this.shownConfig = Object.freeze(redactConfig(d.config));
  }

  clusterConfig(): Config {
    return this.shownConfig;
  }

  /** A topology record as views may show it. */
  private shown(storm: StormBase): StormBase {
    let s = this.shownStorms.get(storm);
    if (!s) {
      const def = { ...storm.def, config: redactConfig(storm.def.config), components: storm.def.components.map((c) => ({ ...c, config: redactConfig(c.config) })) };
      s = { ...storm, def, config: redactConfig(storm.config) };
      this.shownStorms.set(storm, s);
    }
    return s;
  }

  private async storms(): Promise<Map<string, StormBase>> {
    const out = new Map<string, StormBase>();
    for (const [id, s] of await this.d.reader.storms()) out.set(id, this.shown(s));
    return out;
  }

  private async find(nameOrId: string): Promise<StormBase> {
    return this.shown(await this.d.reader.find(nameOrId));
  }

  async clusterSummary(): Promise<ClusterSummary> {
    const { reader } = this.d;
    const supervisors = await reader.supervisors();
    const assignments = await reader.assignments();
    const storms = await this.storms();
    const used = usedSlotKeys(assignments.values());
    let slotsTotal = 0;
    let slotsUsed = 0;
    let gpus = 0;
    let gpuSlotsTotal = 0;
    for (const s of supervisors.values()) {
      slotsTotal += s.ports.length;
      slotsUsed += s.ports.filter((p) => used.has(workerKey({ supervisorId: s.id, port: p }))).length;
      gpus += s.gpus.length;
      gpuSlotsTotal += s.gpus.reduce((n, g) => n + g.slots, 0);
    }
    let gpuSlotsUsed = 0;
    for (const a of assignments.values()) gpuSlotsUsed += a.workers.filter((w) => w.gpu && supervisors.has(w.supervisorId)).length;
    const fairness = this.d.settings.fairness;
    return {
      nimbus: { ...this.nimbusPlace(), uptimeSecs: Math.round((Date.now() - this.startedAt) / 1000) },
      scheduler: this.d.settings.scheduler,
      fairness: fairness ? 'hdrf' : 'none',
      reservationTimeoutSecs: fairness ? fairness.reservationTimeoutMs / 1000 : null,
      resources: clusterResources(supervisors, assignments, storms),
      queued: [...assignments.values()].filter((a) => a.queue).length,
      supervisors: supervisors.size,
      slotsTotal,
      slotsUsed,
      gpus,
      gpuSlotsTotal,
      gpuSlotsUsed,
      topologies: storms.size,
      corruptZnodes: reader.corruptNodes(),
      corruptReads: reader.corruptReads,
    };
  }

  async supervisors(): Promise<SupervisorSummary[]> {
    const { reader } = this.d;
    return supervisorSummaries(await reader.supervisors(), (await reader.assignments()).values(), await this.storms());
  }

  async topologies(): Promise<TopologySummary[]> {
    const { reader } = this.d;
    const storms = await this.storms();
    const assignments = await reader.assignments();
    const supervisors = [...(await reader.supervisors()).values()];
    const totals = totalsOf(supervisors);
    const now = Date.now();
    return [...storms.values()]
      .sort((a, b) => a.launchTime - b.launchTime)
      .map((s) => topologySummary(s, assignments.get(s.id) ?? null, totals, now, supervisors));
  }

  async topologyDetail(nameOrId: string): Promise<TopologyDetail> {
    const { reader, tracker } = this.d;
    const storm = await this.find(nameOrId);
    const assignment = await reader.assignment(storm.id);
    const beats = await reader.heartbeats(storm.id);
    const supervisors = [...(await reader.supervisors()).values()];
    return topologyDetail(storm, assignment, beats, (w) => tracker.liveness(storm.id, w), totalsOf(supervisors), Date.now(), supervisors);
  }

  async queue(): Promise<QueueListing> {
    const { reader } = this.d;
    const storms = await this.storms();
    const now = Date.now();
    const waiting = [...(await reader.assignments()).values()].filter((a) => a.queue && storms.has(a.topologyId));
    waiting.sort((a, b) => queueOrder(a.queue!, b.queue!) || (a.topologyId < b.topologyId ? -1 : 1));
    const fairness = this.d.settings.fairness;
    return {
      fairness: fairness ? 'hdrf' : 'none',
      reservationTimeoutSecs: fairness ? fairness.reservationTimeoutMs / 1000 : null,
      queue: waiting.map((a) => ({ id: a.topologyId, name: storms.get(a.topologyId)!.name, ...queueView(a.queue, now)! })),
    };
  }

  async timeseries(nameOrId: string, since?: number): Promise<TopologyTimeseries> {
    const storm = await this.find(nameOrId);
    return { id: storm.id, name: storm.name, points: this.d.sampler.splits.points(storm.id, since) };
  }

  async clusterSnapshot(): Promise<ClusterSnapshot> {
    const { reader, settings } = this.d;
    const supervisors = await reader.supervisors();
    const assignments = await reader.assignments();
    const storms = await this.storms();
    const now = Date.now();
    const resources = clusterResources(supervisors, assignments, storms);
    const holdings = new Map<string, TopologyHoldings>();
    for (const s of storms.values()) holdings.set(s.id, topologyHoldings(s, assignments.get(s.id) ?? null, resources.total, supervisors.values(), now));
    return {
      now,
      version: packageVersion(),
      nimbus: this.nimbusPlace(),
      scheduler: settings.scheduler,
      fairness: {
        mode: settings.fairness ? 'hdrf' : 'none',
        reservationTimeoutSecs: settings.fairness ? settings.fairness.reservationTimeoutMs / 1000 : null,
      },
      supervisors,
      rows: supervisorSummaries(supervisors, assignments.values(), storms),
      assignments,
      storms,
      resources,
      holdings,
      corruptZnodes: reader.corruptNodes(),
      corruptReads: reader.corruptReads,
    };
  }

  async topologySnapshot(nameOrId: string): Promise<TopologySnapshot> {
    const { reader, tracker, sampler } = this.d;
    const storm = await this.find(nameOrId);
    const assignment = await reader.assignment(storm.id);
    const beats = await reader.heartbeats(storm.id);
    const supervisors = await reader.supervisors();
    const detail = topologyDetail(storm, assignment, beats, (w) => tracker.liveness(storm.id, w), totalsOf(supervisors.values()), Date.now(), supervisors.values());
    return {
      storm,
      assignment,
      beats,
      detail,
      holdings: detailHoldings(storm, detail),
      splitPoints: sampler.splits.points(storm.id),
      nodes: new Map([...supervisors].map(([id, s]) => [id, s.node])),
      now: Date.now(),
    };
  }

  storeClientReplacements(): number | null {
    const n = (this.d.state as Partial<{ clientReplacements: number }>).clientReplacements;
    return typeof n === 'number' ? n : null;
  }

  onHeartbeats(sink: HeartbeatSink): () => void {
    return this.d.sampler.addSink(sink);
  }

  nimbusHealth(): NimbusHealth {
    return this.d.health();
  }

  private nimbusPlace(): { host: string | null; port: number | null; startedAt: number } {
    return { host: this.d.advertise?.host ?? null, port: this.d.advertise?.port ?? null, startedAt: this.startedAt };
  }
}
