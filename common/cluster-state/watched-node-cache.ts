/**
 * A read-through cache over a store, each entry kept valid by a watch: a node
 * (or a child list) is read once with a watch set, answered from memory until
 * the watch fires, then read again on the next ask. So a daemon that looks at
 * the same thousand nodes every second (nimbus's reconcile round: every
 * supervisor, topology and assignment) costs the store nothing while they do
 * not change, and one read per change when they do.
 *
 * Why it stays right:
 * - ZooKeeper sends a client a node's watch event before anything that client
 *   reads or writes after the change (its ordering guarantee), and the stores
 *   deliver watches before the reply that follows them (in-memory: in the
 *   same turn), so after our own write resolves its entry is already gone;
 * - a read in flight when its node's watch fires does not cache what it got;
 * - a missing node is cached as missing with an existence watch;
 * - on a session that is not `connected` everything is dropped (an expiry or a
 *   replaced client also fires every outstanding watch: common/cluster-state.ts);
 * - concurrent asks for one node share one read.
 * Reads of others' writes are as fresh as ZooKeeper's own: the change is seen
 * when its event arrives.
 *
 * A caller that can use a node's previous value while the new one is read
 * (`stale: true`: nimbus's round reads supervisors' records this way, whose
 * node-collector figures change every few seconds while what placement reads
 * of them — ports, GPUs — does not) gets it at once, and the read starts in the
 * background; its next ask finds the new value. A node deleted is never served
 * stale, and a stale value is never older than one change.
 */
import type { z } from 'zod';
import { isStateError, type ClusterState, type NodeStat, type WatchEvent } from '../cluster-state.js';
import { decodeJson } from './json-node.js';

export interface CachedNode {
  data: Buffer;
  stat: NodeStat;
}

interface Entry {
  node: CachedNode | null;
  /** Its watch fired: `node` is the value before that change (served only to `stale` asks). */
  stale?: boolean;
  /** The last decode of `node` (readJson): its schema and the value, or the error it raised. */
  decoded?: { schema: z.ZodType; value?: unknown; error?: unknown };
}

/** A read in flight; `stale` once its node changed meanwhile. */
interface InFlight<T> {
  promise: Promise<T>;
  stale: boolean;
}

export class WatchedNodeCache {
  private readonly nodes = new Map<string, Entry>();
  private readonly lists = new Map<string, string[]>();
  private readonly nodeReads = new Map<string, InFlight<CachedNode | null>>();
  private readonly listReads = new Map<string, InFlight<string[]>>();
  /** Answers from memory, reads from the store, entries dropped by a watch. */
  readonly counts = { hits: 0, reads: 0, invalidations: 0 };
  private readonly unsubscribe: () => void;
  /** One watcher for every watch this cache sets: the store keeps one watch per (kind, path, watcher). */
  private readonly watcher = (e: WatchEvent): void => this.invalidate(e.path, e.type === 'deleted');

  constructor(private readonly state: ClusterState) {
    this.unsubscribe = state.onSessionState((s) => {
      if (s !== 'connected') this.clear();
    });
  }

  /** A node's bytes and stat, or null when it does not exist; with `stale`, the value before its latest change may do (see the header). */
  get(path: string, opts: { stale?: boolean } = {}): Promise<CachedNode | null> {
    const entry = this.nodes.get(path);
    if (entry && (!entry.stale || opts.stale)) {
      this.counts.hits++;
      if (entry.stale) void this.read(path).catch(() => undefined);
      return Promise.resolve(entry.node);
    }
    return this.read(path);
  }

  private read(path: string): Promise<CachedNode | null> {
    return this.shared(
      this.nodeReads,
      path,
      () => this.fetchNode(path),
      (node) => this.nodes.set(path, { node }),
      (node) => {
        // Overtaken by a change while in flight: newer than what is kept, still one change behind.
        const entry = this.nodes.get(path);
        if (entry?.stale) entry.node = node;
      },
    );
  }

  /** A node's child names (sorted), or [] when it does not exist. */
  children(path: string): Promise<string[]> {
    const list = this.lists.get(path);
    if (list) {
      this.counts.hits++;
      return Promise.resolve(list);
    }
    return this.shared(this.listReads, path, () => this.fetchChildren(path), (names) => this.lists.set(path, names));
  }

  /**
   * A JSON node through its schema (json-node.ts), or null when missing; the
   * decoded value is kept with the entry, so an unchanged node is not parsed
   * again. A corrupt node raises CORRUPT every time it is asked for.
   */
  async readJson<S extends z.ZodType>(path: string, schema: S, opts: { stale?: boolean } = {}): Promise<{ value: z.output<S>; stat: NodeStat } | null> {
    const node = await this.get(path, opts);
    if (!node) return null;
    const entry = this.nodes.get(path);
    let decoded = entry?.node === node ? entry.decoded : undefined;
    if (decoded?.schema !== schema) {
      try {
        decoded = { schema, value: decodeJson(path, node.data, schema) };
      } catch (error) {
        decoded = { schema, error };
      }
      if (entry?.node === node) entry.decoded = decoded;
    }
    if (decoded.error !== undefined) throw decoded.error;
    return { value: decoded.value as z.output<S>, stat: node.stat };
  }

  /** Drops everything (and marks reads in flight stale). */
  clear(): void {
    this.nodes.clear();
    this.lists.clear();
    for (const r of this.nodeReads.values()) r.stale = true;
    for (const r of this.listReads.values()) r.stale = true;
  }

  /** Stops following the session (the watches already set fire into an empty cache). */
  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private invalidate(path: string, deleted: boolean): void {
    this.counts.invalidations++;
    const entry = this.nodes.get(path);
    if (entry && entry.node && !deleted) entry.stale = true;
    else this.nodes.delete(path);
    this.lists.delete(path);
    const n = this.nodeReads.get(path);
    if (n) n.stale = true;
    const l = this.listReads.get(path);
    if (l) l.stale = true;
  }

  private shared<T>(table: Map<string, InFlight<T>>, path: string, read: () => Promise<T>, keep: (value: T) => void, overtaken: (value: T) => void = () => undefined): Promise<T> {
    const running = table.get(path);
    if (running) return running.promise;
    this.counts.reads++;
    const flight: InFlight<T> = { stale: false, promise: Promise.resolve() as unknown as Promise<T> };
    flight.promise = read().then(
      (value) => {
        if (table.get(path) === flight) table.delete(path);
        if (!flight.stale) keep(value);
        else overtaken(value);
        return value;
      },
      (err: unknown) => {
        if (table.get(path) === flight) table.delete(path);
        throw err;
      },
    );
    table.set(path, flight);
    return flight.promise;
  }

  private async fetchNode(path: string): Promise<CachedNode | null> {
    try {
      return await this.state.get(path, this.watcher);
    } catch (err) {
      if (!isStateError(err, 'NO_NODE')) throw err;
    }
    // Missing: an existence watch tells us when it appears. Created meanwhile: read it (not cached if it changes again).
    const stat = await this.state.exists(path, this.watcher);
    if (!stat) return null;
    return this.state.get(path, this.watcher);
  }

  private async fetchChildren(path: string): Promise<string[]> {
    try {
      return await this.state.children(path, this.watcher);
    } catch (err) {
      if (!isStateError(err, 'NO_NODE')) throw err;
    }
    const stat = await this.state.exists(path, this.watcher);
    if (!stat) return [];
    return this.state.children(path, this.watcher);
  }
}
