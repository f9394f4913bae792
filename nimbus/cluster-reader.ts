/**
 * Reads nimbus's view of the cluster back from the store: supervisors,
 * topologies (StormBase), assignments and worker heartbeats. Every record goes
 * through its zod schema; a corrupt node is logged once, counted and skipped
 * (a missing node — deleted between listing and reading — is skipped quietly),
 * so no znode content can make nimbus crash.
 */
import { isStateError, type ClusterState, type Watcher } from '../common/cluster-state.js';
import { readJson } from '../common/cluster-state/json-node.js';
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

export interface CorruptNode {
  path: string;
  error: string;
  /** How many reads skipped it. */
  skipped: number;
  firstSeen: number;
}

export class ClusterReader {
  /** Corrupt nodes seen and still corrupt at their last read, by path. */
  private readonly corrupt = new Map<string, CorruptNode>();
  /** Every skip since start (a counter, as metrics go). */
  corruptReads = 0;

  constructor(
    private readonly state: ClusterState,
    private readonly log: Logger,
  ) {}

  corruptNodes(): CorruptNode[] {
    return [...this.corrupt.values()];
  }

  /** One node through its schema; null when missing or corrupt. */
  async readNode<S extends z.ZodType>(path: string, schema: S, watcher?: Watcher): Promise<{ value: z.output<S>; version: number } | null> {
    try {
      const { value, stat } = await readJson(this.state, path, schema, watcher);
      this.corrupt.delete(path);
      return { value, version: stat.version };
    } catch (err) {
      if (isStateError(err, 'NO_NODE')) {
        this.corrupt.delete(path);
        return null;
      }
      if (isStateError(err, 'CORRUPT')) {
        this.corruptReads++;
        const known = this.corrupt.get(path);
        if (known && known.error === err.message) {
          known.skipped++;
        } else {
          this.corrupt.set(path, { path, error: err.message, skipped: 1, firstSeen: Date.now() });
          this.log.warn({ path, err: err.message }, 'skipping corrupt znode');
        }
        return null;
      }
      throw err;
    }
  }

  async childrenOf(path: string, watcher?: Watcher): Promise<string[]> {
    try {
      return await this.state.children(path, watcher);
    } catch (err) {
      if (isStateError(err, 'NO_NODE')) return [];
      throw err;
    }
  }

  async supervisors(watcher?: Watcher): Promise<Map<string, SupervisorInfo>> {
    const out = new Map<string, SupervisorInfo>();
    for (const id of await this.childrenOf(ZkPaths.supervisors, watcher)) {
      const path = ZkPaths.childOf(ZkPaths.supervisors, id);
      const rec = await this.readNode(path, supervisorInfoSchema);
      if (!rec) continue;
      if (rec.value.id !== id) {
        this.markCorrupt(path, `supervisor node ${id} claims id ${rec.value.id}`);
        continue;
      }
      out.set(id, rec.value);
    }
    return out;
  }

  async storms(watcher?: Watcher): Promise<Map<string, StormBase>> {
    const out = new Map<string, StormBase>();
    for (const id of await this.childrenOf(ZkPaths.storms, watcher)) {
      const rec = await this.readNode(ZkPaths.childOf(ZkPaths.storms, id), stormBaseSchema);
      if (rec && rec.value.id === id) out.set(id, rec.value);
    }
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
    for (const id of await this.childrenOf(ZkPaths.assignments)) {
      const rec = await this.readNode(ZkPaths.childOf(ZkPaths.assignments, id), assignmentSchema);
      if (rec && rec.value.topologyId === id) out.set(id, rec.value);
    }
    return out;
  }

  async assignment(topologyId: string): Promise<Assignment | null> {
    return (await this.readNode(ZkPaths.assignment(topologyId), assignmentSchema))?.value ?? null;
  }

  /** Heartbeats of one topology by node name (`<supervisor>-<port>`). */
  async heartbeats(topologyId: string): Promise<Map<string, ParsedWorkerHeartbeat>> {
    const out = new Map<string, ParsedWorkerHeartbeat>();
    const dir = ZkPaths.workerbeatsOf(topologyId);
    for (const name of await this.childrenOf(dir)) {
      const rec = await this.readNode(ZkPaths.childOf(dir, name), workerHeartbeatSchema);
      if (rec) out.set(name, rec.value);
    }
    return out;
  }

  private markCorrupt(path: string, error: string): void {
    this.corruptReads++;
    if (!this.corrupt.has(path)) {
      this.corrupt.set(path, { path, error, skipped: 1, firstSeen: Date.now() });
      this.log.warn({ path, err: error }, 'skipping corrupt znode');
    }
  }
}
