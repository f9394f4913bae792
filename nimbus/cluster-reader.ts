/**
 * Reads nimbus's view of the cluster back from the store: supervisors,
 * topologies (StormBase), assignments and worker heartbeats. Every record goes
 * through its zod schema; a corrupt node is logged once, counted and skipped
 * (a missing node — deleted between listing and reading — is skipped quietly),
 * so no znode content can make nimbus crash. The nodes of a listing are read
 * concurrently (READ_CONCURRENCY at a time), never one after another. With a
 * WatchedNodeCache (the reconcile loop's reader) every read goes through it,
 * so what did not change costs no request; without one (the read model's)
 * every read goes to the store.
 */
import { ClusterStateError, isStateError, type ClusterState, type NodeStat } from '../common/cluster-state.js';
import { decodeJson, readJson } from '../common/cluster-state/json-node.js';
import type { WatchedNodeCache } from '../common/cluster-state/watched-node-cache.js';
import { mapConcurrent } from '../common/map-concurrent.js';
import type { Assignment } from '../common/assignment.js';
import type { Logger } from '../common/logger.js';
import {
  assignmentSchema,
  stormBaseSchema,
  supervisorInfoSchema,
  workerHeartbeatSchema,
  type ParsedWorkerHeartbeat,
} from '../common/record-schemas.js';
import type { SupervisorInfo } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import { ZkPaths } from '../common/zk-paths.js';
import type { z } from 'zod';
import { TopologyNotFoundError } from './errors.js';

/** Reads of one listing in flight at once. */
export const READ_CONCURRENCY = 128;

export interface CorruptNode {
  path: string;
  error: string;
  /** How many reads skipped it. */
  skipped: number;
  firstSeen: number;
}

/** What readers sharing it have skipped: corrupt nodes by path (still corrupt at their last read), and every skip. */
interface CorruptBook {
  nodes: Map<string, CorruptNode>;
  skips: number;
}

export class ClusterReader {
  private constructor(
    private readonly state: ClusterState,
    private readonly log: Logger,
    private readonly cache: WatchedNodeCache | null,
    private readonly book: CorruptBook,
  ) {}

  static over(state: ClusterState, log: Logger): ClusterReader {
    return new ClusterReader(state, log, null, { nodes: new Map(), skips: 0 });
  }

  /** A reader of the same store through `cache`, keeping one book of corrupt nodes with this one (each is logged once). */
  through(cache: WatchedNodeCache): ClusterReader {
    return new ClusterReader(this.state, this.log, cache, this.book);
  }

  /** Every skip since start (a counter, as metrics go). */
  get corruptReads(): number {
    return this.book.skips;
  }

  corruptNodes(): CorruptNode[] {
    return [...this.book.nodes.values()];
  }

  /** One node through its schema; null when missing or corrupt. `stale`: through the cache, the value before its latest change may do. */
  async readNode<S extends z.ZodType>(path: string, schema: S, opts: { stale?: boolean } = {}): Promise<{ value: z.output<S>; version: number } | null> {
    try {
      const read: { value: z.output<S>; stat: NodeStat } | null = this.cache ? await this.cache.readJson(path, schema, opts) : await readJson(this.state, path, schema);
      if (!read) throw new ClusterStateError('NO_NODE', path);
      this.book.nodes.delete(path);
      return { value: read.value, version: read.stat.version };
    } catch (err) {
      if (isStateError(err, 'NO_NODE')) {
        this.book.nodes.delete(path);
        return null;
      }
      if (isStateError(err, 'CORRUPT')) return this.skipCorrupt(path, err.message);
      throw err;
    }
  }

  /** Bytes already read (the heartbeat sampler's) through `schema`; null, counted and logged once, when corrupt. */
  decode<S extends z.ZodType>(path: string, data: Uint8Array, schema: S): z.output<S> | null {
    try {
      const value = decodeJson(path, data, schema);
      this.book.nodes.delete(path);
      return value;
    } catch (err) {
      if (isStateError(err, 'CORRUPT')) return this.skipCorrupt(path, err.message);
      throw err;
    }
  }

  private skipCorrupt(path: string, error: string): null {
    this.book.skips++;
    const known = this.book.nodes.get(path);
    if (known && known.error === error) {
      known.skipped++;
    } else {
      this.book.nodes.set(path, { path, error, skipped: 1, firstSeen: Date.now() });
      this.log.warn({ path, err: error }, 'skipping corrupt znode');
    }
    return null;
  }

  async childrenOf(path: string): Promise<string[]> {
    if (this.cache) return this.cache.children(path);
    try {
      return await this.state.children(path);
    } catch (err) {
      if (isStateError(err, 'NO_NODE')) return [];
      throw err;
    }
  }

  /** Every child of `dir` through `schema`, read concurrently, by name; missing and corrupt ones left out. */
  async readAll<S extends z.ZodType>(dir: string, schema: S, opts: { stale?: boolean } = {}): Promise<Map<string, z.output<S>>> {
    const names = await this.childrenOf(dir);
    const recs = await mapConcurrent(names, READ_CONCURRENCY, (name) => this.readNode(ZkPaths.childOf(dir, name), schema, opts));
    const out = new Map<string, z.output<S>>();
    names.forEach((name, i) => {
      const rec = recs[i];
      if (rec) out.set(name, rec.value);
    });
    return out;
  }

  /**
   * The registered supervisors (the child list is always current). Through the
   * cache a record may be one change behind while its new value is read: what
   * changes in it every few seconds is its node collector's figures, while
   * what placement reads — ports, GPUs, capacity — changes only with a restart,
   * which also replaces the node. A round that waited for those reads each time
   * would wait on ZooKeeper for nothing it uses.
   */
  async supervisors(): Promise<Map<string, SupervisorInfo>> {
    const out = new Map<string, SupervisorInfo>();
    for (const [id, info] of await this.readAll(ZkPaths.supervisors, supervisorInfoSchema, { stale: true })) {
      if (info.id !== id) {
        this.markCorrupt(ZkPaths.childOf(ZkPaths.supervisors, id), `supervisor node ${id} claims id ${info.id}`);
        continue;
      }
      out.set(id, info);
    }
    return out;
  }

  async storms(): Promise<Map<string, StormBase>> {
    const out = new Map<string, StormBase>();
    for (const [id, storm] of await this.readAll(ZkPaths.storms, stormBaseSchema)) if (storm.id === id) out.set(id, storm);
    return out;
  }

  /** A topology by id, else by name; TopologyNotFoundError when neither matches. */
  async find(nameOrId: string): Promise<StormBase> {
    const storms = await this.storms();
    const byId = storms.get(nameOrId);
    if (byId) return byId;
    for (const s of storms.values()) if (s.name === nameOrId) return s;
    throw new TopologyNotFoundError(nameOrId);
  }

  async storm(topologyId: string): Promise<StormBase | null> {
    return (await this.readNode(ZkPaths.storm(topologyId), stormBaseSchema))?.value ?? null;
  }

  async assignments(): Promise<Map<string, Assignment>> {
    const out = new Map<string, Assignment>();
    for (const [id, a] of await this.readAll(ZkPaths.assignments, assignmentSchema)) if (a.topologyId === id) out.set(id, a);
    return out;
  }

  async assignment(topologyId: string): Promise<Assignment | null> {
    return (await this.readNode(ZkPaths.assignment(topologyId), assignmentSchema))?.value ?? null;
  }

  /** Heartbeats (metrics records) of one topology by node name (`<supervisor>-<port>`). */
  heartbeats(topologyId: string): Promise<Map<string, ParsedWorkerHeartbeat>> {
    return this.readAll(ZkPaths.workerbeatsOf(topologyId), workerHeartbeatSchema);
  }

  private markCorrupt(path: string, error: string): void {
    this.book.skips++;
    if (!this.book.nodes.has(path)) {
      this.book.nodes.set(path, { path, error, skipped: 1, firstSeen: Date.now() });
      this.log.warn({ path, err: error }, 'skipping corrupt znode');
    }
  }
}
