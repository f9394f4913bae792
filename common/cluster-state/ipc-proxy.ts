/**
 * ClusterState over Node's child-process IPC channel, for worker processes in
 * local mode: the store lives in the local-cluster process, workers reach it
 * through `IpcClusterState` (child side), which `serveClusterStateOverIpc`
 * (parent side) answers with one in-memory session per child. The session is
 * closed when the child exits or its channel disconnects, so a killed worker's
 * ephemeral nodes vanish just as a dead ZooKeeper client's would.
 *
 * Usage (worker):  const state = new IpcClusterState();            // uses this process's IPC channel
 * Usage (parent):  const served = serveClusterStateOverIpc(child, store, log);
 */
import type { Serializable } from 'node:child_process';
import type { Logger } from '../logger.js';
import { RateLimitedLog } from '../logger.js';
import { HstormError } from '../errors.js';
import {
  ClusterStateError,
  type ClusterState,
  type CreateOptions,
  type NodeStat,
  type SessionState,
  type Watcher,
} from '../cluster-state.js';
import type { InMemoryClusterStore } from './in-memory-store.js';
import { callWatcher } from './call-watcher.js';
import { SessionStateEmitter } from './session-state-emitter.js';
import {
  STATE_PROTOCOL_VERSION,
  StateReplySchema,
  StateRequestSchema,
  isStateMessage,
  requestIdOf,
  type StateReply,
  type StateRequest,
  type StateResult,
  type WireError,
} from './ipc-messages.js';

/** The part of `process` (child side) or a `ChildProcess` (parent side) the proxy uses. */
export interface IpcEndpoint {
  send?: ((message: Serializable, callback?: (error: Error | null) => void) => boolean) | undefined;
  readonly connected?: boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect' | 'exit', listener: () => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'disconnect' | 'exit', listener: () => void): unknown;
}

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

export interface IpcStateServer {
  /** Malformed `state.*` messages received from the child and ignored. */
  readonly garbageCount: number;
  /** The child's session in the store (for InMemoryClusterStore.expireSession). */
  readonly sessionId: number;
  /** Stops answering and closes the child's session (its ephemeral nodes go away). */
  close(): Promise<void>;
}

/** Answers one child's cluster-state requests from `store`, in a session of its own. */
export function serveClusterStateOverIpc(child: IpcEndpoint, store: InMemoryClusterStore, log: Logger): IpcStateServer {
  const session = store.session();
  const warn = new RateLimitedLog(log);
  let garbage = 0;
  let stopped = false;

  const send = (m: StateReply): void => {
    if (stopped || child.connected === false || !child.send) return;
    try {
      child.send(m, (err) => {
        if (err) log.debug({ err, type: m.type }, 'could not send a cluster-state reply to the child');
      });
    } catch (err) {
      log.debug({ err, type: m.type }, 'could not send a cluster-state reply to the child');
    }
  };
  // One function per outstanding watch id: the child reuses an id for a watcher it sets twice, and the store then dedups it.
  const watchFns = new Map<number, Watcher>();
  const watcherFor = (watch: number | undefined): Watcher | undefined => {
    if (watch === undefined) return undefined;
    let fn = watchFns.get(watch);
    if (!fn) {
      fn = (event) => {
        watchFns.delete(watch);
        send({ type: 'state.watch', version: STATE_PROTOCOL_VERSION, watch, event });
      };
      watchFns.set(watch, fn);
    }
    return fn;
  };

  const answer = async (req: StateRequest): Promise<StateResult> => {
    switch (req.type) {
      case 'state.create':
        return {
          op: 'path',
          path: await session.create(req.path, Buffer.from(req.data, 'base64'), {
            ...(req.mode !== undefined && { mode: req.mode }),
            ...(req.parents !== undefined && { parents: req.parents }),
          }),
        };
      case 'state.get': {
        const { data, stat } = await session.get(req.path, watcherFor(req.watch));
        return { op: 'node', data: data.toString('base64'), stat };
      }
      case 'state.exists':
        return { op: 'stat', stat: await session.exists(req.path, watcherFor(req.watch)) };
      case 'state.set':
        return { op: 'stat', stat: await session.set(req.path, Buffer.from(req.data, 'base64'), req.expectedVersion) };
      case 'state.delete':
        await session.delete(req.path, {
          ...(req.expectedVersion !== undefined && { version: req.expectedVersion }),
          ...(req.recursive !== undefined && { recursive: req.recursive }),
        });
        return { op: 'none' };
      case 'state.children':
        return { op: 'children', children: await session.children(req.path, watcherFor(req.watch)) };
      case 'state.close':
        await session.close();
        return { op: 'none' };
    }
  };

  const onMessage = (m: unknown): void => {
    if (!isStateMessage(m)) return;
    const parsed = StateRequestSchema.safeParse(m);
    if (!parsed.success) {
      garbage++;
      warn.warn({ garbage }, 'ignored a malformed cluster-state IPC request from a child');
      const id = requestIdOf(m);
      if (id !== undefined) {
        const error: WireError = { code: 'HSTORM_ERR_STATE_BAD_ARGUMENT', kind: 'BAD_ARGUMENT', message: 'malformed cluster-state request' };
        send({ type: 'state.error', version: STATE_PROTOCOL_VERSION, id, error });
      }
      return;
    }
    const req = parsed.data;
    const newWatch = 'watch' in req && req.watch !== undefined && !watchFns.has(req.watch) ? req.watch : undefined;
    answer(req).then(
      (result) => send({ type: 'state.ok', version: STATE_PROTOCOL_VERSION, id: req.id, result }),
      (err: unknown) => {
        // A failed request sets no watch (NO_NODE): forget the function made for it.
        if (newWatch !== undefined) watchFns.delete(newWatch);
        send({ type: 'state.error', version: STATE_PROTOCOL_VERSION, id: req.id, error: toWireError(err) });
      },
    );
  };

  const unsubscribe = session.onSessionState((state) => send({ type: 'state.session', version: STATE_PROTOCOL_VERSION, state }));
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    child.off('message', onMessage);
    child.off('exit', onGone);
    child.off('disconnect', onGone);
    await session.close();
  };
  const onGone = (): void => {
    stop().catch((err: unknown) => log.error({ err }, 'closing a child cluster-state session failed'));
  };
  child.on('message', onMessage);
  child.on('exit', onGone);
  child.on('disconnect', onGone);

  return {
    get garbageCount() {
      return garbage;
    },
    get sessionId() {
      return session.sessionId;
    },
    close: stop,
  };
}

function toWireError(err: unknown): WireError {
  if (err instanceof ClusterStateError) return { code: err.code, kind: err.kind, message: err.message, path: err.path };
  if (err instanceof HstormError) return { code: err.code, kind: null, message: err.message };
  return { code: 'HSTORM_ERR_INTERNAL', kind: null, message: err instanceof Error ? err.message : String(err) };
}

function reviveWireError(e: WireError): Error {
  if (e.kind) return new ClusterStateError(e.kind, e.path ?? '', e.message);
  return new HstormError(e.code, e.message);
}

function toBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

function expect<K extends StateResult['op']>(r: StateResult, op: K): Extract<StateResult, { op: K }> {
  if (r.op !== op) throw new ClusterStateError('CONNECTION_LOSS', '', `cluster-state parent answered with ${r.op}, expected ${op}`);
  return r as Extract<StateResult, { op: K }>;
}
