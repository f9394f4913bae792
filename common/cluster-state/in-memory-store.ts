/**
 * The in-memory cluster-state store: the "server" that local mode and unit
 * tests use instead of ZooKeeper. It holds one tree; each `session()` is a
 * ClusterState client with its own session id, ephemeral nodes and watches,
 * exactly as a ZooKeeper client would see them (versions, cversion, CAS,
 * sequential names from the parent's cversion, one-shot watches delivered
 * asynchronously).
 *
 * `expireSession(id)` behaves like a ZooKeeper session expiry followed by the
 * recovery ZooKeeperClusterState performs: the session's ephemeral nodes are
 * deleted (other clients' watches fire), its watches are dropped, listeners see
 * `expired`; then the client gets a new session id, its ephemeral nodes are
 * re-created with their last data, listeners see `connected`, and every watcher
 * that was outstanding is fired once (`changed`, or `children` for a child
 * watch) so its owner re-reads and re-arms it. To make a client vanish for
 * good, close it.
 */
import type { Logger } from '../logger.js';
import {
  ClusterStateError,
  type ClusterState,
  type CreateOptions,
  type NodeStat,
  type SessionState,
  type WatchEvent,
  type WatchEventType,
  type Watcher,
} from '../cluster-state.js';
import { callWatcher } from './call-watcher.js';
import { SessionStateEmitter } from './session-state-emitter.js';
import { ancestorsOf, baseName, checkData, checkPath, joinPath, parentOf, sequenceSuffix } from './node-path.js';

interface MemNode {
  data: Buffer;
  version: number;
  cversion: number;
  ctime: number;
  mtime: number;
  /** Session id that owns this ephemeral node; 0 for persistent nodes. */
  owner: number;
  children: Set<string>;
}

/** data: set by get, or by exists on an existing node; exist: exists on a missing node; child: children. */
type WatchKind = 'data' | 'exist' | 'child';

interface WatchReg {
  kind: WatchKind;
  path: string;
  watcher: Watcher;
  session: InMemorySession;
}

/** What a session asks for; the store decides the kind (exists on a missing node is an `exist` watch). */
interface WatchRequest {
  watcher: Watcher;
  session: InMemorySession;
}

export class InMemoryClusterStore {
  private readonly nodes = new Map<string, MemNode>();
  private readonly watches: Record<WatchKind, Map<string, WatchReg[]>> = {
    data: new Map(),
    exist: new Map(),
    child: new Map(),
  };
  private readonly sessions = new Map<number, InMemorySession>();
  private nextSessionId = 1;

  constructor(private readonly log?: Logger) {
    const now = Date.now();
    this.nodes.set('/', { data: Buffer.alloc(0), version: 0, cversion: 0, ctime: now, mtime: now, owner: 0, children: new Set() });
  }

  /** A new client with its own session. */
  session(): InMemorySession {
    return new InMemorySession(this, this.log);
  }

  /** Ids of the sessions currently open. */
  sessionIds(): number[] {
    return [...this.sessions.keys()];
  }

  /** Expires the session with this id (see the file comment for what follows); false when no such session is open. */
  expireSession(id: number): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    s.expireNow();
    return true;
  }

  // ---- used by InMemorySession -------------------------------------------------------------

  /** @internal */ openSession(s: InMemorySession): number {
    const id = this.nextSessionId++;
    this.sessions.set(id, s);
    return id;
  }

  /** @internal Ends session `id`: drops its watches and deletes its ephemeral nodes; returns what they held. */
  endSession(id: number, s: InMemorySession): { path: string; data: Buffer }[] {
    this.sessions.delete(id);
    for (const table of Object.values(this.watches)) {
      for (const [path, regs] of table) {
        const kept = regs.filter((r) => r.session !== s);
        if (kept.length === 0) table.delete(path);
        else table.set(path, kept);
      }
    }
    const owned = [...this.nodes.entries()].filter(([, n]) => n.owner === id).map(([path, n]) => ({ path, data: n.data }));
    for (const { path } of owned) this.removeNode(path);
    return owned;
  }

  /** @internal */ create(path: string, data: Uint8Array, options: CreateOptions, owner: number): string {
    checkPath(path);
    checkData(path, data);
    if (path === '/') throw new ClusterStateError('NODE_EXISTS', path);
    const mode = options.mode ?? 'persistent';
    const parentPath = parentOf(path);
    if (options.parents) {
      for (const a of ancestorsOf(path)) {
        if (this.nodes.has(a)) continue;
        this.checkCanHaveChildren(parentOf(a), path);
        this.addNode(a, Buffer.alloc(0), 0);
      }
    }
    this.checkCanHaveChildren(parentPath, path);
    const sequential = mode === 'persistent_sequential' || mode === 'ephemeral_sequential';
    const actual = sequential ? path + sequenceSuffix(this.nodes.get(parentPath)?.cversion ?? 0) : path;
    if (this.nodes.has(actual)) throw new ClusterStateError('NODE_EXISTS', actual);
    const ephemeral = mode === 'ephemeral' || mode === 'ephemeral_sequential';
    this.addNode(actual, Buffer.from(data), ephemeral ? owner : 0);
    return actual;
  }

  /** @internal */ get(path: string, watch: WatchRequest | undefined): { data: Buffer; stat: NodeStat } {
    checkPath(path);
    const n = this.nodes.get(path);
    if (!n) throw new ClusterStateError('NO_NODE', path);
    if (watch) this.addWatch({ ...watch, kind: 'data', path });
    return { data: Buffer.from(n.data), stat: statOf(n) };
  }

  /** @internal */ exists(path: string, watch: WatchRequest | undefined): NodeStat | null {
    checkPath(path);
    const n = this.nodes.get(path);
    if (watch) this.addWatch({ ...watch, kind: n ? 'data' : 'exist', path });
    return n ? statOf(n) : null;
  }

  /** @internal */ set(path: string, data: Uint8Array, version: number | undefined): NodeStat {
    checkPath(path);
    checkData(path, data);
    const n = this.nodes.get(path);
    if (!n) throw new ClusterStateError('NO_NODE', path);
    if (version !== undefined && version !== -1 && version !== n.version) {
      throw new ClusterStateError('BAD_VERSION', path, `bad version for ${path}: expected ${version}, node is at ${n.version}`);
    }
    n.data = Buffer.from(data);
    n.version++;
    n.mtime = Date.now();
    this.trigger(path, 'changed', ['data', 'exist']);
    return statOf(n);
  }

  /** @internal */ delete(path: string, version: number | undefined, recursive: boolean): void {
    checkPath(path);
    if (path === '/') throw new ClusterStateError('BAD_ARGUMENT', path, 'the root node cannot be deleted');
    const n = this.nodes.get(path);
    if (!n) throw new ClusterStateError('NO_NODE', path);
    if (version !== undefined && version !== -1 && version !== n.version) {
      throw new ClusterStateError('BAD_VERSION', path, `bad version for ${path}: expected ${version}, node is at ${n.version}`);
    }
    if (n.children.size > 0 && !recursive) throw new ClusterStateError('NOT_EMPTY', path);
    this.removeSubtree(path);
  }

  /** @internal */ children(path: string, watch: WatchRequest | undefined): string[] {
    checkPath(path);
    const n = this.nodes.get(path);
    if (!n) throw new ClusterStateError('NO_NODE', path);
    if (watch) this.addWatch({ ...watch, kind: 'child', path });
    return [...n.children].sort();
  }

  // ---- tree and watch bookkeeping ----------------------------------------------------------

  private checkCanHaveChildren(parentPath: string, path: string): void {
    const parent = this.nodes.get(parentPath);
    if (!parent) throw new ClusterStateError('NO_PARENT', path, `no parent node ${parentPath} for ${path}`);
    if (parent.owner !== 0) throw new ClusterStateError('BAD_ARGUMENT', path, `ephemeral node ${parentPath} cannot have children`);
  }

  private addNode(path: string, data: Buffer, owner: number): void {
    const now = Date.now();
    this.nodes.set(path, { data, version: 0, cversion: 0, ctime: now, mtime: now, owner, children: new Set() });
    const parentPath = parentOf(path);
    const parent = this.nodes.get(parentPath);
    if (!parent) throw new Error(`in-memory store: parent of ${path} vanished`); // unreachable: callers check
    parent.children.add(baseName(path));
    parent.cversion++;
    this.trigger(path, 'created', ['data', 'exist']);
    this.trigger(parentPath, 'children', ['child']);
  }

  private removeSubtree(path: string): void {
    const n = this.nodes.get(path);
    if (!n) return;
    for (const c of [...n.children]) this.removeSubtree(joinPath(path, c));
    this.removeNode(path);
  }

  private removeNode(path: string): void {
    this.nodes.delete(path);
    const parentPath = parentOf(path);
    const parent = this.nodes.get(parentPath);
    if (parent) {
      parent.children.delete(baseName(path));
      parent.cversion++;
    }
    this.trigger(path, 'deleted', ['data', 'exist', 'child']);
    this.trigger(parentPath, 'children', ['child']);
  }

  private addWatch(reg: WatchReg): void {
    const table = this.watches[reg.kind];
    const regs = table.get(reg.path) ?? [];
    // ZooKeeper keeps a set per path: the same watcher set twice by one client fires once.
    if (regs.some((r) => r.watcher === reg.watcher && r.session === reg.session)) return;
    regs.push(reg);
    table.set(reg.path, regs);
    reg.session.track(reg);
  }

  private trigger(path: string, type: WatchEventType, kinds: WatchKind[]): void {
    const event: WatchEvent = { type, path };
    for (const kind of kinds) {
      const regs = this.watches[kind].get(path);
      if (!regs) continue;
      this.watches[kind].delete(path);
      for (const r of regs) r.session.deliver(r, event);
    }
  }
}

export class InMemorySession implements ClusterState {
  private id: number;
  private closed = false;
  private readonly state: SessionStateEmitter;
  /** Watches this session has set and that have not fired yet: re-fired after an expiry. */
  private readonly outstanding = new Set<WatchReg>();

  constructor(
    private readonly store: InMemoryClusterStore,
    private readonly log?: Logger,
  ) {
    this.id = store.openSession(this);
    this.state = new SessionStateEmitter('connected', log);
  }

  /** The current session id (changes after an expiry). */
  get sessionId(): number {
    return this.id;
  }

  async create(path: string, data: Uint8Array = new Uint8Array(0), options: CreateOptions = {}): Promise<string> {
    this.checkOpen(path);
    return this.store.create(path, data, options, this.id);
  }

  async get(path: string, watcher?: Watcher): Promise<{ data: Buffer; stat: NodeStat }> {
    this.checkOpen(path);
    return this.store.get(path, this.reg(watcher));
  }

  async exists(path: string, watcher?: Watcher): Promise<NodeStat | null> {
    this.checkOpen(path);
    return this.store.exists(path, this.reg(watcher));
  }

  async set(path: string, data: Uint8Array, version?: number): Promise<NodeStat> {
    this.checkOpen(path);
    return this.store.set(path, data, version);
  }

  async delete(path: string, options: { version?: number; recursive?: boolean } = {}): Promise<void> {
    this.checkOpen(path);
    this.store.delete(path, options.version, options.recursive ?? false);
  }

  async children(path: string, watcher?: Watcher): Promise<string[]> {
    this.checkOpen(path);
    return this.store.children(path, this.reg(watcher));
  }

  onSessionState(listener: (state: SessionState) => void): () => void {
    return this.state.subscribe(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.outstanding.clear();
    this.store.endSession(this.id, this);
    this.state.clear();
  }

  /** @internal Called by the store when it registers a watch for this session. */
  track(reg: WatchReg): void {
    this.outstanding.add(reg);
  }

  /** @internal Called by the store for a watch this session set. */
  deliver(reg: WatchReg, event: WatchEvent): void {
    if (!this.outstanding.delete(reg)) return;
    callWatcher(reg.watcher, event, this.log);
  }

  /** @internal See InMemoryClusterStore.expireSession. */
  expireNow(): void {
    if (this.closed) return;
    const ephemerals = this.store.endSession(this.id, this);
    this.state.emit('expired');
    this.id = this.store.openSession(this);
    for (const { path, data } of ephemerals) {
      try {
        this.store.create(path, data, { mode: 'ephemeral' }, this.id);
      } catch (err) {
        // Someone else took the name, or its parent went away while the session was down.
        this.log?.warn({ err, path }, 'could not re-create an ephemeral node after session expiry');
      }
    }
    this.state.emit('connected');
    const pending = [...this.outstanding];
    this.outstanding.clear();
    for (const r of pending) callWatcher(r.watcher, { type: r.kind === 'child' ? 'children' : 'changed', path: r.path }, this.log);
  }

  private reg(watcher: Watcher | undefined): WatchRequest | undefined {
    return watcher ? { watcher, session: this } : undefined;
  }

  private checkOpen(path: string): void {
    if (this.closed) throw new ClusterStateError('CLOSED', path, `cluster-state client is closed (${path})`);
  }
}

function statOf(n: MemNode): NodeStat {
  return {
    version: n.version,
    cversion: n.cversion,
    ctime: n.ctime,
    mtime: n.mtime,
    ephemeral: n.owner !== 0,
    numChildren: n.children.size,
  };
}
