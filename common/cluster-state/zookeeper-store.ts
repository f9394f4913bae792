/**
 * ClusterState on a real ZooKeeper ensemble (cluster mode), through
 * node-zookeeper-client.
 *
 * - Every path is relative to `root` (created on connect when missing), so
 *   several hstorm clusters can share one ensemble.
 * - Every operation has a deadline: it rejects with TIMEOUT rather than wait
 *   for a server that is gone. (The library keeps unsent requests queued while
 *   disconnected, so a request that timed out may still be applied after a
 *   reconnect — the same ambiguity as ZooKeeper's own CONNECTION_LOSS.)
 * - Session expiry is survived: the store opens a new session, re-creates the
 *   ephemeral nodes this client created and has not deleted (with their last
 *   data written through this client; sequential ones under the same name),
 *   reports `expired` then `connected`, and then fires every watcher that was
 *   outstanding once — `changed` for a get/exists watch, `children` for a
 *   children watch — because ZooKeeper dropped them with the old session and
 *   anything may have changed meanwhile. Callers re-read in their watcher and
 *   thereby re-arm it, as they do for any watch event.
 * - A plain disconnect keeps the session: the library reconnects and re-sets
 *   its watches itself; listeners see `disconnected` then `connected`.
 * - A stuck client is replaced (zookeeper-watchdog.ts): one that has had no
 *   session, or no answer, for the session timeout — the library never times
 *   out a handshake the server does not answer, which ZooKeeper 3.8.0 does to
 *   clients that connect just as it restarts. The new client resumes the same
 *   session (id and password), so nothing expires on its account; since its
 *   library holds none of the old client's watches, the store then restores
 *   ephemerals and fires every outstanding watcher once, as after an expiry
 *   (listeners see `disconnected` then `connected`, no `expired`).
 */
import { CreateMode, Exception, type ACL, State, createClient, type Client, type Event, type Stat } from 'node-zookeeper-client';
import { withDefaults, type ConfigRecord } from '../config/config.js';
import { zookeeperAuthPayload } from '../security/secrets.js';
import { aclFor, addDigestAuth } from './zookeeper-acl.js';
import type { Logger } from '../logger.js';
import {
  ClusterStateError,
  type ClusterState,
  type CreateOptions,
  type NodeStat,
  type SessionState,
  type Watcher,
} from '../cluster-state.js';
import { SessionStateEmitter } from './session-state-emitter.js';
import { ancestorsOf, checkData, checkPath, joinPath } from './node-path.js';
import { fromZooKeeperError, zkErrorCode } from './zookeeper-errors.js';
import { ZooKeeperWatches, type ZkWatchKind } from './zookeeper-watches.js';
import { ConnectionWatchdog, type StuckReason, type WatchdogClock } from './zookeeper-watchdog.js';
import { realIntervalClock } from '../interval-clock.js';

export interface ZooKeeperOptions {
  /** `host:port` of each ensemble member. */
  servers: string[];
  /** Node under which this cluster's state lives, e.g. `/hstorm`; `/` for none. */
  root: string;
  sessionTimeoutMs: number;
  /** How long connectZooKeeper waits for a first session. */
  connectTimeoutMs: number;
  /** Deadline of each operation (default: sessionTimeoutMs). */
  operationTimeoutMs?: number;
  /** Digest credentials `user:password`: added to every session, and the only identity allowed on nodes created (zookeeper-acl.ts). */
  auth?: string | null;
  /** How long a client may go without a session or an answer before it is replaced (default: sessionTimeoutMs). */
  stuckAfterMs?: number;
  /** Time source of the stuck-client watchdog (tests). */
  clock?: WatchdogClock;
}

/** The ZooKeeper options a cluster config names (daemons' config, or the one a worker is launched with). */
export function zookeeperOptions(config: ConfigRecord): ZooKeeperOptions {
  const c = withDefaults(config);
  return {
    servers: c['hstorm.zookeeper.servers'],
    root: c['hstorm.zookeeper.root'],
    sessionTimeoutMs: c['hstorm.zookeeper.session.timeout.ms'],
    connectTimeoutMs: c['hstorm.zookeeper.connect.timeout.ms'],
    auth: zookeeperAuthPayload(c),
  };
}

const MODES = {
  persistent: CreateMode.PERSISTENT,
  ephemeral: CreateMode.EPHEMERAL,
  persistent_sequential: CreateMode.PERSISTENT_SEQUENTIAL,
  ephemeral_sequential: CreateMode.EPHEMERAL_SEQUENTIAL,
} as const;

/** Connects, creates `root` when missing, and resolves once a session is up; rejects (never hangs) after connectTimeoutMs. */
export async function connectZooKeeper(options: ZooKeeperOptions, log: Logger): Promise<ZooKeeperClusterState> {
  checkPath(options.root);
  if (options.servers.length === 0) throw new ClusterStateError('BAD_ARGUMENT', options.root, 'no ZooKeeper servers given');
  const client = await firstSession(options);
  const store = new ZooKeeperClusterState(client, options, log);
  try {
    await store.ensureRoot();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

export class ZooKeeperClusterState implements ClusterState {
  private client: Client;
  /** Bumped per session; events from an older client are ignored. */
  private generation = 0;
  private closed = false;
  private readonly root: string;
  private readonly opTimeoutMs: number;
  private readonly state: SessionStateEmitter;
  private readonly watches: ZooKeeperWatches;
  /** Ephemeral nodes this client made and has not deleted, with their last data: re-created after an expiry. */
  private readonly ephemerals = new Map<string, Buffer>();
  /** Each pending operation's fail function, with the generation of the client it was sent through. */
  private readonly inFlight = new Map<(err: ClusterStateError) => void, number>();
  /** ACL of every node this client creates (zookeeper-acl.ts); world-open without credentials. */
  private readonly acls: ACL[];
  private readonly clock: WatchdogClock;
  private readonly watchdog: ConnectionWatchdog;
  /** Set when the current client is new (expiry, or a stuck client replaced): on connect, ephemerals and watches are restored. */
  private resyncPending = false;
  private resyncRunning = false;
  /** Ids (hex) of every session this store has had: an ephemeral node one of them still holds is ours to replace. */
  private readonly ourSessions = new Set<string>();
  private replacements = 0;
  /** Whether this outage's first replacement was logged (later ones go to debug). */
  private replacementLogged = false;

  /** Use connectZooKeeper. */
  constructor(
    client: Client,
    private readonly options: ZooKeeperOptions,
    private readonly log: Logger,
  ) {
    this.root = options.root === '/' ? '' : options.root;
    this.opTimeoutMs = options.operationTimeoutMs ?? options.sessionTimeoutMs;
    this.acls = aclFor(options.auth);
    this.state = new SessionStateEmitter('connected', log);
    this.watches = new ZooKeeperWatches((abs) => this.relative(abs), log);
    this.client = client;
    this.clock = options.clock ?? realIntervalClock;
    const connected = client.getState() === State.SYNC_CONNECTED;
    if (connected) this.ourSessions.add(client.getSessionId().toString('hex'));
    this.watchdog = new ConnectionWatchdog(
      options.stuckAfterMs ?? options.sessionTimeoutMs,
      (reason, forMs) => this.replaceClient(reason, forMs),
      this.clock,
      connected,
    );
    this.attach(client, this.generation);
  }

  /** How many times a stuck client was replaced (see zookeeper-watchdog.ts); for status pages and tests. */
  get clientReplacements(): number {
    return this.replacements;
  }

  /** The current session's id and password, for tools and tests that need to act on the session itself. */
  sessionCredentials(): { id: Buffer; password: Buffer } {
    return { id: this.client.getSessionId(), password: this.client.getSessionPassword() };
  }

  async create(path: string, data: Uint8Array = new Uint8Array(0), options: CreateOptions = {}): Promise<string> {
    this.check(path);
    checkData(path, data);
    if (path === '/') throw new ClusterStateError('NODE_EXISTS', path);
    const mode = options.mode ?? 'persistent';
    if (options.parents) {
      for (const a of ancestorsOf(path)) {
        try {
          await this.call<string>('create', a, (c, cb) => c.create(this.absolute(a), this.acls, CreateMode.PERSISTENT, cb));
        } catch (err) {
          if (!(err instanceof ClusterStateError && err.kind === 'NODE_EXISTS')) throw err;
        }
      }
    }
    const bytes = Buffer.from(data);
    const actual = await this.call<string>('create', path, (c, cb) => c.create(this.absolute(path), bytes, this.acls, MODES[mode], cb));
    const rel = this.relative(actual);
    if (mode === 'ephemeral' || mode === 'ephemeral_sequential') this.ephemerals.set(rel, bytes);
    return rel;
  }

  async get(path: string, watcher?: Watcher): Promise<{ data: Buffer; stat: NodeStat }> {
    this.check(path);
    const [data, stat] = await this.watched<readonly [Buffer | null, Stat]>('data', path, watcher, (c, w, cb) => {
      const done = (err: unknown, d: Buffer | null, s: Stat): void => cb(err, [d, s] as const);
      if (w) c.getData(this.absolute(path), w, done);
      else c.getData(this.absolute(path), done);
    });
    return { data: data ? Buffer.from(data) : Buffer.alloc(0), stat: toNodeStat(stat) };
  }

  async exists(path: string, watcher?: Watcher): Promise<NodeStat | null> {
    this.check(path);
    const stat = await this.watched<Stat | null>('data', path, watcher, (c, w, cb) => {
      if (w) c.exists(this.absolute(path), w, cb);
      else c.exists(this.absolute(path), cb);
    });
    return stat ? toNodeStat(stat) : null;
  }

  async set(path: string, data: Uint8Array, version?: number): Promise<NodeStat> {
    this.check(path);
    checkData(path, data);
    const bytes = Buffer.from(data);
    const stat = await this.call<Stat>('set', path, (c, cb) => c.setData(this.absolute(path), bytes, version ?? -1, cb));
    if (this.ephemerals.has(path)) this.ephemerals.set(path, bytes);
    return toNodeStat(stat);
  }

  async delete(path: string, options: { version?: number; recursive?: boolean } = {}): Promise<void> {
    this.check(path);
    if (path === '/') throw new ClusterStateError('BAD_ARGUMENT', path, 'the root node cannot be deleted');
    if (options.recursive) {
      const stat = await this.exists(path);
      if (!stat) throw new ClusterStateError('NO_NODE', path);
      if (options.version !== undefined && options.version !== -1 && stat.version !== options.version) {
        throw new ClusterStateError('BAD_VERSION', path, `bad version for ${path}: expected ${options.version}, node is at ${stat.version}`);
      }
      await this.deleteTree(path, options.version);
      return;
    }
    await this.remove(path, options.version);
  }

  async children(path: string, watcher?: Watcher): Promise<string[]> {
    this.check(path);
    const names = await this.watched<string[]>('child', path, watcher, (c, w, cb) => {
      if (w) c.getChildren(this.absolute(path), w, cb);
      else c.getChildren(this.absolute(path), cb);
    });
    return [...names].sort();
  }

  onSessionState(listener: (state: SessionState) => void): () => void {
    return this.state.subscribe(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.generation++;
    this.watchdog.close();
    this.watches.clear();
    this.state.clear();
    for (const fail of [...this.inFlight.keys()]) fail(new ClusterStateError('CLOSED', '/', 'cluster-state client is closed'));
    await closeClient(this.client);
  }

  /** @internal Called by connectZooKeeper. */
  async ensureRoot(): Promise<void> {
    if (!this.root) return;
    for (const a of [...ancestorsOf(this.root), this.root]) {
      try {
        await this.call<string>('create', a, (c, cb) => c.create(a, this.acls, CreateMode.PERSISTENT, cb), false);
      } catch (err) {
        if (!(err instanceof ClusterStateError && err.kind === 'NODE_EXISTS')) throw err;
      }
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private async remove(path: string, version: number | undefined): Promise<void> {
    await this.call<void>('delete', path, (c, cb) => c.remove(this.absolute(path), version ?? -1, (err) => cb(err, undefined)));
    this.ephemerals.delete(path);
  }

  /** Deletes children first; a child created meanwhile makes the final delete fail NOT_EMPTY, so it retries a few times. */
  private async deleteTree(path: string, version: number | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let kids: string[];
      try {
        kids = await this.children(path);
      } catch (err) {
        if (err instanceof ClusterStateError && err.kind === 'NO_NODE') return;
        throw err;
      }
      for (const k of kids) await this.deleteTree(joinPath(path, k), undefined);
      try {
        await this.remove(path, version);
        return;
      } catch (err) {
        if (err instanceof ClusterStateError && err.kind === 'NO_NODE' && version === undefined) return;
        if (!(err instanceof ClusterStateError && err.kind === 'NOT_EMPTY') || attempt >= 4) throw err;
      }
    }
  }

  /** An operation that may set a watch: the watch is forgotten when the operation fails. */
  private async watched<R>(
    kind: ZkWatchKind,
    path: string,
    watcher: Watcher | undefined,
    start: (client: Client, w: ((e: Event) => void) | undefined, cb: (err: unknown, result: R) => void) => void,
  ): Promise<R> {
    const op = kind === 'child' ? 'children' : 'get';
    if (!watcher) return this.call<R>(op, path, (c, cb) => start(c, undefined, cb));
    const { wrapper, fresh } = this.watches.arm(kind, path, watcher);
    try {
      return await this.call<R>(op, path, (c, cb) => start(c, wrapper, cb));
    } catch (err) {
      // exists() on a missing node is not an error; for the rest ZooKeeper set no watch (or we cannot tell).
      if (fresh) this.watches.disarm(kind, path, watcher);
      throw err;
    }
  }

  /** Runs one library call with a deadline, mapping its error; `relative` false means `path` is already absolute. */
  private call<R>(op: string, path: string, start: (client: Client, cb: (err: unknown, result: R) => void) => void, relative = true): Promise<R> {
    const generation = this.generation;
    return new Promise<R>((resolve, reject) => {
      let done = false;
      const finish = (err: ClusterStateError | null, result?: R): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.inFlight.delete(fail);
        if (err) reject(err);
        else resolve(result as R);
      };
      const fail = (err: ClusterStateError): void => finish(err);
      const timer = setTimeout(() => {
        if (generation === this.generation) this.watchdog.unanswered();
        finish(new ClusterStateError('TIMEOUT', path, `ZooKeeper ${op} ${path} got no answer within ${this.opTimeoutMs} ms`));
      }, this.opTimeoutMs);
      this.inFlight.set(fail, generation);
      const shown = relative ? path : this.relative(path);
      try {
        start(this.client, (err, result) => {
          // Even after our deadline: an answer proves the connection works. CONNECTION_LOSS is the library's own, not an answer.
          if (generation === this.generation && zkErrorCode(err) !== Exception.CONNECTION_LOSS) this.watchdog.answered();
          if (!err) return finish(null, result);
          if (this.closed) return finish(new ClusterStateError('CLOSED', shown, `cluster-state client is closed (${shown})`));
          finish(fromZooKeeperError(err, op, shown));
        });
      } catch (err) {
        finish(fromZooKeeperError(err, op, shown));
      }
    });
  }

  private check(path: string): void {
    if (this.closed) throw new ClusterStateError('CLOSED', path, `cluster-state client is closed (${path})`);
    checkPath(path);
  }

  private absolute(path: string): string {
    if (!this.root) return path;
    return path === '/' ? this.root : this.root + path;
  }

  private relative(absolute: string): string {
    if (!this.root) return absolute;
    if (absolute === this.root) return '/';
    return absolute.startsWith(this.root + '/') ? absolute.slice(this.root.length) : absolute;
  }

  private attach(client: Client, generation: number): void {
    client.on('state', (s: State) => {
      if (generation !== this.generation || this.closed) return;
      if (s === State.SYNC_CONNECTED) {
        this.watchdog.connected();
        this.replacementLogged = false;
        this.ourSessions.add(client.getSessionId().toString('hex'));
        if (this.resyncPending) this.startResync(generation);
        else if (!this.resyncRunning) this.state.emit('connected');
      } else if (s === State.DISCONNECTED) {
        this.watchdog.disconnected();
        this.state.emit('disconnected');
      } else if (s === State.EXPIRED) {
        this.renewSession();
      }
    });
  }

  /** The old session is gone (the library closes that client itself): open a new one and restore what we can. */
  private renewSession(): void {
    this.log.warn({ root: this.options.root }, 'ZooKeeper session expired; opening a new session');
    this.state.emit('expired');
    this.switchTo(newClient(this.options));
  }

  /**
   * The watchdog found the client stuck: abandon it and let a fresh client
   * resume the same session (the server tells it when that session is gone,
   * and renewSession takes over).
   */
  private replaceClient(reason: StuckReason, forMs: number): void {
    if (this.closed) return;
    const old = this.client;
    const id = old.getSessionId();
    const resume = id.some((b) => b !== 0) ? { id, password: old.getSessionPassword() } : undefined;
    this.replacements++;
    const fields = { root: this.options.root, reason, forMs, session: id.toString('hex'), replacements: this.replacements };
    const why = reason === 'no session' ? 'no ZooKeeper session' : 'no answer from ZooKeeper';
    if (!this.replacementLogged) {
      this.log.warn(fields, `${why} for ${forMs} ms; replacing the ZooKeeper client with a fresh one that resumes the session`);
      this.replacementLogged = true;
    } else {
      this.log.debug(fields, 'still no ZooKeeper session; replacing the client again');
    }
    abandonClient(old);
    this.state.emit('disconnected');
    const generation = this.switchTo(newClient(this.options, resume));
    for (const [fail, g] of [...this.inFlight]) {
      if (g < generation) fail(new ClusterStateError('CONNECTION_LOSS', '/', 'the ZooKeeper client was replaced before it answered'));
    }
  }

  /** Makes `client` the current one, restored once it connects; returns its generation. */
  private switchTo(client: Client): number {
    const generation = ++this.generation;
    this.client = client;
    this.resyncPending = true;
    this.watchdog.replaced();
    this.attach(client, generation);
    return generation;
  }

  private startResync(generation: number): void {
    if (this.resyncRunning) return;
    this.resyncRunning = true;
    this.resync(generation)
      .catch((err: unknown) => this.log.error({ err }, 'restoring state on a new ZooKeeper client failed'))
      .finally(() => {
        this.resyncRunning = false;
        // A newer client connected while this one was restoring: restore on it too.
        if (this.resyncPending && !this.closed && this.client.getState() === State.SYNC_CONNECTED) this.startResync(this.generation);
      });
  }

  /** On a new client: every ephemeral node this store owns exists again, then listeners hear `connected` and every watcher fires once. */
  private async resync(generation: number): Promise<void> {
    for (const [path, data] of [...this.ephemerals]) {
      if (generation !== this.generation || this.closed) return;
      await this.restoreEphemeral(path, data, generation);
    }
    if (generation !== this.generation || this.closed) return;
    this.resyncPending = false;
    this.state.emit('connected');
    const fired = this.watches.fireAllForResync();
    this.log.info({ ephemerals: this.ephemerals.size, watches: fired }, 'ZooKeeper client is up again; ephemerals restored, watchers fired');
  }

  /**
   * Creates an ephemeral node again. If it exists: held by this session (a
   * resumed one), it is kept and given its last data; held by an earlier
   * session of this store that lingers on the server, it is deleted and
   * created again; held by anyone else, it is retried until that session
   * expires, for up to two session timeouts.
   */
  private async restoreEphemeral(path: string, data: Buffer, generation: number): Promise<void> {
    const deadline = this.clock.now() + 2 * this.options.sessionTimeoutMs + this.opTimeoutMs;
    const abs = this.absolute(path);
    for (;;) {
      if (generation !== this.generation || this.closed) return;
      try {
        await this.call<string>('create', path, (c, cb) => c.create(abs, data, this.acls, CreateMode.EPHEMERAL, cb));
        return;
      } catch (err) {
        const kind = err instanceof ClusterStateError ? err.kind : undefined;
        let why = String(kind ?? err);
        if (kind === 'NODE_EXISTS') {
          try {
            const stat = await this.call<Stat | null>('exists', path, (c, cb) => c.exists(abs, cb));
            if (!stat) continue;
            const owner = stat.ephemeralOwner.toString('hex');
            if (owner === this.client.getSessionId().toString('hex')) {
              await this.call<Stat>('set', path, (c, cb) => c.setData(abs, data, -1, cb));
              return;
            }
            if (this.ourSessions.has(owner)) {
              this.log.info({ path, session: owner }, 'an earlier session of this client still holds an ephemeral node; replacing it');
              await this.call<void>('delete', path, (c, cb) => c.remove(abs, stat.version, (e) => cb(e, undefined)));
              continue;
            }
            why = `held by session ${owner}`;
          } catch (e) {
            why = String(e instanceof ClusterStateError ? e.kind : e);
          }
        } else if (kind !== 'CONNECTION_LOSS' && kind !== 'TIMEOUT') {
          // Its parent is gone, or the client may not write there: this client no longer owns it.
          this.ephemerals.delete(path);
          this.log.warn({ err, path }, 'could not re-create an ephemeral node on a new ZooKeeper session');
          return;
        }
        if (this.clock.now() >= deadline) {
          this.ephemerals.delete(path);
          this.log.warn({ err, path, why }, 'gave up re-creating an ephemeral node on a new ZooKeeper session');
          return;
        }
        // Waiting for another session to expire, or for the server: a short pause, not a spin.
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
}

/** A client that connects at once; `resume` makes it take over an existing session (the library supports it; its types do not say so). */
function newClient(options: ZooKeeperOptions, resume?: { id: Buffer; password: Buffer }): Client {
  // spinDelay: the pause after trying every server once; short, so a restarted server is found quickly.
  const clientOptions = {
    sessionTimeout: options.sessionTimeoutMs,
    spinDelay: 250,
    retries: 0,
    ...(resume ? { sessionId: resume.id, sessionPassword: resume.password } : {}),
  };
  const client = createClient(options.servers.join(','), clientOptions);
  addDigestAuth(client, options.auth);
  client.connect();
  return client;
}

/**
 * The first session, within connectTimeoutMs. A handshake the server accepted but never answers
 * (ZOOKEEPER-5051, a server in its first moments) would hold a client for the whole deadline: each
 * try gets a deadline of its own, doubling from 2 s so a slow but live server is not cut short, and
 * a client that missed it is replaced by a fresh one.
 */
async function firstSession(options: ZooKeeperOptions): Promise<Client> {
  const until = Date.now() + options.connectTimeoutMs;
  for (let attemptMs = 2000; ; attemptMs *= 2) {
    const left = until - Date.now();
    const client = newClient(options);
    if (await connectedWithin(client, Math.min(attemptMs, left))) return client;
    await closeClient(client);
    if (left <= attemptMs) {
      throw new ClusterStateError(
        'CONNECTION_LOSS',
        options.root,
        `could not connect to ZooKeeper at ${options.servers.join(',')} within ${options.connectTimeoutMs} ms (is it running? \`hstorm dev-zookeeper\` starts one)`,
      );
    }
  }
}

/** True once `client` has a session, false when `timeoutMs` passed first. */
function connectedWithin(client: Client, timeoutMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      client.removeListener('connected', onConnected);
      resolve(false);
    }, timeoutMs);
    const onConnected = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('connected', onConnected);
  });
}

/** node-zookeeper-client 1.1.x's connection manager, as far as silencing a client needs it (not in its types). */
interface ConnectionInternals {
  socket?: { destroy(): void };
  onSocketConnected?: () => void;
  onSocketData?: (data: Buffer) => void;
}

/**
 * Makes sure a client that is not connected never talks to the server again.
 * close() alone does not: a connect the library has already scheduled (its
 * spin delay) still opens a socket, and the library, no longer in its
 * connecting state, reads the server's handshake answer as a reply — when the
 * bytes look like an error code it does not know, it throws from a socket
 * handler, which would end the process. So any socket opened from now on is
 * destroyed as it connects, nothing it reads is parsed, and the current one is
 * destroyed (before close(), so the closeSession that close() queues is never
 * sent; the session may live on in another client). Where the internals are
 * not what 1.1.x has, this does nothing and close() stops the client alone.
 */
function silence(client: Client): void {
  const cm = (client as unknown as { connectionManager?: ConnectionInternals }).connectionManager;
  if (!cm || typeof cm.onSocketConnected !== 'function' || typeof cm.onSocketData !== 'function') return;
  cm.onSocketConnected = function (this: ConnectionInternals) {
    this.socket?.destroy();
  };
  cm.onSocketData = () => undefined;
  try {
    cm.socket?.destroy();
  } catch {
    // already gone
  }
}

/** Ends a stuck client without a word to the server (see silence); the session lives on in the client that replaces it. */
function abandonClient(client: Client): void {
  silence(client);
  try {
    client.close();
  } catch {
    // Not connected: close() may throw writing to a socket that is gone; it has stopped reconnecting all the same.
  }
}

/**
 * Ends a client whatever its state. When connected, it sends closeSession (so
 * its ephemeral nodes go at once) and waits briefly for the server to hang
 * up. When not connected, the library's close() may throw (it writes to a
 * socket that does not exist yet); it still stops reconnecting, which is all
 * that matters then.
 */
function closeClient(client: Client): Promise<void> {
  const connected = client.getState() === State.SYNC_CONNECTED;
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, connected ? 2000 : 0);
    timer.unref();
    if (connected) {
      client.once('disconnected', () => {
        clearTimeout(timer);
        resolve();
      });
    }
    // Not connected: nothing to say to the server, and a connect already scheduled must not reach it (see silence).
    if (!connected) silence(client);
    try {
      client.close();
    } catch {
      // See above: nothing to clean up beyond what close() already did.
    }
  });
}

function toNodeStat(s: Stat): NodeStat {
  return {
    version: s.version,
    cversion: s.cversion,
    ctime: Number(s.ctime.readBigInt64BE(0)),
    mtime: Number(s.mtime.readBigInt64BE(0)),
    ephemeral: s.ephemeralOwner.some((b) => b !== 0),
    numChildren: s.numChildren,
  };
}
