/**
 * The child side of the cluster-state IPC channel: `IpcClusterState` is the
 * ClusterState a local-mode worker uses; every call becomes a `state.*`
 * request to the local-cluster process, which answers it from the in-memory
 * store (ipc-server.ts). Watches and session events come back the same way.
 *
 * Usage (worker):  const state = new IpcClusterState();   // uses this process's IPC channel
 */
import type { Logger } from '../logger.js';
import { HstormError } from '../errors.js';
import {
  ClusterStateError,
  type ClusterState,
  type CreateOptions,
  type NodeStat,
  type SessionState,
  type Watcher,
} from '../cluster-state.js';
import { callWatcher } from './call-watcher.js';
import { SessionStateEmitter } from './session-state-emitter.js';
import {
  STATE_PROTOCOL_VERSION,
  StateReplySchema,
  isStateMessage,
  reviveWireError,
  type IpcEndpoint,
  type StateReply,
  type StateRequest,
  type StateResult,
} from './ipc-messages.js';

export interface IpcClusterStateOptions {
  /** The channel to the parent; default: this process's own IPC channel. */
  channel?: IpcEndpoint;
  /** A request the parent has not answered within this time rejects with TIMEOUT. */
  requestTimeoutMs?: number;
  log?: Logger;
}

/** A request as the caller builds it; `request` adds the id, version and watch id. */
type RequestBody = StateRequest extends infer R ? (R extends StateRequest ? Omit<R, 'id' | 'version' | 'watch'> : never) : never;

interface Pending {
  resolve(result: StateResult): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  watchId?: number;
}

export class IpcClusterState implements ClusterState {
  private readonly pending = new Map<number, Pending>();
  private readonly watchers = new Map<number, Watcher>();
  /** `kind:path` → watcher → watch id, so a watcher set twice on one node fires once (as in ZooKeeper). */
  private readonly watchIds = new Map<string, Map<Watcher, number>>();
  private readonly state: SessionStateEmitter;
  private readonly timeoutMs: number;
  private readonly log: Logger | undefined;
  private nextId = 0;
  private nextWatch = 0;
  private closed = false;
  private lost = false;
  private garbage = 0;
  private readonly onMessage = (m: unknown): void => this.receive(m);
  private readonly onDisconnect = (): void => this.channelLost();

  private readonly channel: IpcEndpoint;

  constructor(options: IpcClusterStateOptions = {}) {
    // `process` has every member IpcEndpoint names, but its overloaded on/off do not unify with these signatures.
    const channel = options.channel ?? (process as unknown as IpcEndpoint);
    this.channel = channel;
    if (!channel.send) throw new HstormError('HSTORM_ERR_STATE_NO_IPC', 'IpcClusterState needs an IPC channel: start this process with fork() or stdio "ipc"');
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.log = options.log;
    this.state = new SessionStateEmitter('connected', this.log);
    channel.on('message', this.onMessage);
    channel.on('disconnect', this.onDisconnect);
  }

  /** Malformed `state.*` messages received and ignored. */
  get garbageCount(): number {
    return this.garbage;
  }

  async create(path: string, data: Uint8Array = new Uint8Array(0), options: CreateOptions = {}): Promise<string> {
    const r = await this.request(path, {
      type: 'state.create',
      path,
      data: toBase64(data),
      ...(options.mode !== undefined && { mode: options.mode }),
      ...(options.parents !== undefined && { parents: options.parents }),
    });
    return expect(r, 'path').path;
  }

  async get(path: string, watcher?: Watcher): Promise<{ data: Buffer; stat: NodeStat }> {
    const r = expect(await this.request(path, { type: 'state.get', path }, watcher && { kind: 'data', watcher }), 'node');
    return { data: Buffer.from(r.data, 'base64'), stat: r.stat };
  }

  async exists(path: string, watcher?: Watcher): Promise<NodeStat | null> {
    return expect(await this.request(path, { type: 'state.exists', path }, watcher && { kind: 'data', watcher }), 'stat').stat;
  }

  async set(path: string, data: Uint8Array, version?: number): Promise<NodeStat> {
    const body: RequestBody = { type: 'state.set', path, data: toBase64(data), ...(version !== undefined && { expectedVersion: version }) };
    const r = expect(await this.request(path, body), 'stat');
    if (!r.stat) throw new ClusterStateError('CONNECTION_LOSS', path, `cluster-state parent answered set ${path} without a stat`);
    return r.stat;
  }

  async delete(path: string, options: { version?: number; recursive?: boolean } = {}): Promise<void> {
    await this.request(path, {
      type: 'state.delete',
      path,
      ...(options.version !== undefined && { expectedVersion: options.version }),
      ...(options.recursive !== undefined && { recursive: options.recursive }),
    });
  }

  async children(path: string, watcher?: Watcher): Promise<string[]> {
    return expect(await this.request(path, { type: 'state.children', path }, watcher && { kind: 'child', watcher }), 'children')
      .children;
  }

  onSessionState(listener: (state: SessionState) => void): () => void {
    return this.state.subscribe(listener);
  }

  /** Ends the session in the parent (its ephemeral nodes go away now) and lets go of the channel. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.lost) await this.request('/', { type: 'state.close' });
    } catch (err) {
      this.log?.warn({ err }, 'cluster-state parent did not confirm close; the session ends when this process exits');
    } finally {
      this.closed = true;
      this.detach(new ClusterStateError('CLOSED', '/', 'cluster-state client is closed'));
      this.state.clear();
    }
  }

  private request(path: string, body: RequestBody, watch?: { kind: 'data' | 'child'; watcher: Watcher }): Promise<StateResult> {
    if (this.closed) return Promise.reject(new ClusterStateError('CLOSED', path, `cluster-state client is closed (${path})`));
    if (this.lost) return Promise.reject(new ClusterStateError('CONNECTION_LOSS', path, `IPC channel to the cluster-state parent is gone (${path})`));
    const id = this.nextId++;
    const { watchId, fresh } = watch ? this.watchIdFor(watch.kind, path, watch.watcher) : { watchId: undefined, fresh: false };
    const message = { ...body, version: STATE_PROTOCOL_VERSION, id, ...(watchId !== undefined && { watch: watchId }) };
    return new Promise<StateResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id, new ClusterStateError('TIMEOUT', path, `cluster-state parent did not answer ${body.type} ${path} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer, ...(fresh && { watchId }) });
      const fail = (err: Error | null): void => {
        if (err) this.settle(id, new ClusterStateError('CONNECTION_LOSS', path, `could not send to the cluster-state parent: ${err.message}`));
      };
      try {
        this.channel.send?.(message, fail);
      } catch (err) {
        fail(err as Error);
      }
    });
  }

  private watchIdFor(kind: string, path: string, watcher: Watcher): { watchId: number; fresh: boolean } {
    const key = `${kind}:${path}`;
    let ids = this.watchIds.get(key);
    const known = ids?.get(watcher);
    if (known !== undefined && this.watchers.has(known)) return { watchId: known, fresh: false };
    const watchId = this.nextWatch++;
    if (!ids) this.watchIds.set(key, (ids = new Map()));
    ids.set(watcher, watchId);
    this.watchers.set(watchId, watcher);
    return { watchId, fresh: true };
  }

  /** Completes request `id` with a result or an error (a failed request that set a new watch forgets it). */
  private settle(id: number, outcome: StateResult | Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (outcome instanceof Error) {
      if (p.watchId !== undefined) this.forgetWatch(p.watchId);
      p.reject(outcome);
    } else {
      p.resolve(outcome);
    }
  }

  private receive(m: unknown): void {
    if (!isStateMessage(m)) return;
    const parsed = StateReplySchema.safeParse(m);
    if (!parsed.success) {
      this.garbage++;
      this.log?.warn({ garbage: this.garbage }, 'ignored a malformed cluster-state IPC message');
      return;
    }
    const msg: StateReply = parsed.data;
    switch (msg.type) {
      case 'state.ok':
        this.settle(msg.id, msg.result);
        return;
      case 'state.error':
        this.settle(msg.id, reviveWireError(msg.error));
        return;
      case 'state.watch': {
        const w = this.watchers.get(msg.watch);
        if (!w) return;
        this.forgetWatch(msg.watch);
        callWatcher(w, msg.event, this.log);
        return;
      }
      case 'state.session':
        this.state.emit(msg.state);
        return;
    }
  }

  private channelLost(): void {
    if (this.closed || this.lost) return;
    this.lost = true;
    this.detach(new ClusterStateError('CONNECTION_LOSS', '/', 'IPC channel to the cluster-state parent closed'));
    this.state.emit('disconnected');
  }

  private detach(reason: ClusterStateError): void {
    this.channel.off('message', this.onMessage);
    this.channel.off('disconnect', this.onDisconnect);
    for (const id of [...this.pending.keys()]) this.settle(id, new ClusterStateError(reason.kind, reason.path, reason.message));
    this.watchers.clear();
    this.watchIds.clear();
  }

  private forgetWatch(watchId: number): void {
    this.watchers.delete(watchId);
    for (const [key, ids] of this.watchIds) {
      for (const [w, id] of ids) if (id === watchId) ids.delete(w);
      if (ids.size === 0) this.watchIds.delete(key);
    }
  }
}

function toBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

function expect<K extends StateResult['op']>(r: StateResult, op: K): Extract<StateResult, { op: K }> {
  if (r.op !== op) throw new ClusterStateError('CONNECTION_LOSS', '', `cluster-state parent answered with ${r.op}, expected ${op}`);
  return r as Extract<StateResult, { op: K }>;
}
