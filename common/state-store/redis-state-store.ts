/**
 * The `redis` state provider (Storm's RedisKeyValueStateProvider), on
 * node-redis — the client the connectors use too, so the product carries one
 * Redis client: maintained by Redis itself, promise-based, binary-safe
 * (buffers in and out), with MULTI/EXEC, Lua and per-command timeouts.
 *
 * A namespace `ns` is three Redis keys (Storm's layout, hstorm's prefix):
 *   <prefix><ns>           hash: the committed entries (key bytes → value bytes)
 *   <prefix><ns>$prepare   hash: the prepared transaction's changes ("" deletes)
 *   <prefix><ns>$txid      hash: `commit` and `prepare`, the last txids, as decimal text
 * A prepare is one MULTI/EXEC (drop the old prepare, write the new, record its
 * txid); a commit is one Lua script that checks the prepared txid and moves
 * the changes into the committed hash — both atomic in Redis, so a commit cut
 * off half way (a crash, a lost connection) leaves nothing half-written: the
 * entries are those before it or after it. (Storm's own commit is a sequence
 * of HMSET, HDEL and DEL: a crash between them leaves a mixture.)
 *
 * node-redis is loaded when a Redis store is made (a dynamic import): a
 * worker whose topology keeps no state, or keeps it in memory, never loads a
 * Redis client (the rule the connectors keep: test/unit/connectors/client-loading.test.ts).
 *
 * Commands fail fast while Redis is unreachable (no offline queue) and after
 * `commandTimeoutMs`; the client reconnects by itself. A failed call rejects
 * with StateStoreError, and the checkpoint that made it fails and is retried.
 */
// Types only (erased by tsc): node-redis itself loads through import() when a Redis store is made, below.
// eslint-disable-next-line no-restricted-imports
import type * as Redis from 'redis';
import { StateStoreError, StateTxidError } from '../errors.js';
import { redactUrlPasswords } from '../security/redaction.js';
import { quoteBytes, type StateEntry, type StateStore, type StateStoreSettings, type StateTxids } from './state-store.js';

/** Entries per HSCAN reply and per HSET of a prepare. */
const CHUNK = 1000;
/** Reconnection: wait grows by this per attempt up to RECONNECT_MAX_MS (a Redis restart is noticed within that). */
const RECONNECT_STEP_MS = 100;
const RECONNECT_MAX_MS = 2000;

/** KEYS: committed, prepare, txid; ARGV: txid. Moves the prepared changes into the committed hash if `txid` is the one prepared. */
const COMMIT_SCRIPT = `
local p = redis.call('HGET', KEYS[3], 'prepare')
if not p then return 0 end
if p ~= ARGV[1] then return redis.error_reply('HSTORM_TXID ' .. p) end
local kv = redis.call('HGETALL', KEYS[2])
for i = 1, #kv, 2 do
  if kv[i + 1] == '' then redis.call('HDEL', KEYS[1], kv[i]) else redis.call('HSET', KEYS[1], kv[i], kv[i + 1]) end
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[3], 'commit', ARGV[1])
redis.call('HDEL', KEYS[3], 'prepare')
return 1
`;

type RedisModule = typeof Redis;

/** The settings with the URL resolved (openStateStore reads `urlEnv`). */
export type RedisStateSettings = Omit<StateStoreSettings, 'urlEnv'>;

function makeClient(redis: RedisModule, s: RedisStateSettings) {
  return redis.createClient({
    url: s.url,
    disableOfflineQueue: true,
    commandOptions: { timeout: s.commandTimeoutMs },
    socket: { connectTimeout: s.connectTimeoutMs, reconnectStrategy: (attempt: number) => Math.min(RECONNECT_MAX_MS, (attempt + 1) * RECONNECT_STEP_MS) },
  }).withTypeMapping({ [redis.RESP_TYPES.BLOB_STRING]: Buffer });
}

type Client = ReturnType<typeof makeClient>;

export interface RedisStateStoreOptions {
  /** Connection trouble (the client's `error` events): the worker logs them, rate-limited. */
  onConnectionError?: (err: Error) => void;
}

export class RedisStateStore implements StateStore {
  readonly provider = 'redis';
  readonly where: string;
  /** The client once node-redis has loaded (every call awaits `loading` first). */
  private loaded: Client | null = null;
  private readonly loading: Promise<Client>;
  private readonly prefix: string;
  private readonly connectTimeoutMs: number;
  private closed = false;
  /** Calls made before the first connection wait for it (up to connectTimeoutMs); later outages fail at once. */
  private firstConnection: Promise<void> | null;

  /** Connects in the background: calls made before Redis answers (or while it is down) fail at once with StateStoreError. */
  constructor(settings: RedisStateSettings, opts: RedisStateStoreOptions = {}) {
    this.prefix = settings.keyPrefix;
    // The whole password goes, `@`s included (a password cut at its first `@` left its tail in every log line).
    this.where = `${redactUrlPasswords(settings.url)} (key prefix ${JSON.stringify(settings.keyPrefix)})`;
    this.connectTimeoutMs = settings.connectTimeoutMs;
    let connected!: () => void;
    this.firstConnection = new Promise<void>((resolve) => (connected = resolve));
    this.loading = import('redis').then((redis) => {
      const client = makeClient(redis, settings);
      client.on('error', (err: Error) => opts.onConnectionError?.(err));
      client.once('ready', () => connected());
      this.loaded = client;
      if (!this.closed) client.connect().catch(() => undefined); // it keeps retrying; each call reports what it met
      return client;
    });
    this.loading.catch(() => undefined); // a failed load is reported by the first call
  }

  private get client(): Client {
    if (this.loaded === null) throw new StateStoreError(`the state store at ${this.where} has no Redis client yet`, this.where);
    return this.loaded;
  }

  /** Resolves once connected (tests and tools that want to wait instead of failing fast). */
  async ready(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    await this.loading;
    while (!this.client.isReady) {
      if (Date.now() > until) throw new StateStoreError(`the state store at ${this.where} did not answer within ${timeoutMs} ms`, this.where);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  locate(ns: string, key?: Uint8Array): string {
    return `Redis hash ${JSON.stringify(this.prefix + ns)}${key ? ` field ${quoteBytes(key)}` : ''} at ${this.where}`;
  }

  txids(ns: string): Promise<StateTxids> {
    return this.call(ns, async () => {
      const [committed, prepared] = await this.client.hmGet(this.key(ns, '$txid'), ['commit', 'prepare']);
      return { committed: this.txid(ns, 'commit', committed), prepared: this.txid(ns, 'prepare', prepared) };
    });
  }

  scan(ns: string, onChunk: (entries: readonly StateEntry[]) => void): Promise<void> {
    return this.call(ns, async () => {
      for await (const entries of this.client.hScanIterator(this.key(ns), { COUNT: CHUNK })) {
        onChunk(entries.map((e): StateEntry => [e.field, e.value]));
      }
    });
  }

  get(ns: string, keys: readonly Uint8Array[]): Promise<(Uint8Array | null)[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.call(ns, async () => (await this.client.hmGet(this.key(ns), keys.map(buf))) as (Buffer | null)[]);
  }

  size(ns: string): Promise<number> {
    return this.call(ns, () => this.client.hLen(this.key(ns)));
  }

  prepare(ns: string, txid: number, changes: readonly StateEntry[]): Promise<void> {
    return this.call(ns, async () => {
      const key = this.key(ns, '$prepare');
      // The chain's methods queue on the same MULTI (their typed return values only grow the reply type).
      const m = this.client.multi();
      m.del(key);
      for (let i = 0; i < changes.length; i += CHUNK) m.hSet(key, changes.slice(i, i + CHUNK).map(([k, v]): [Buffer, Buffer] => [buf(k), buf(v)]));
      m.hSet(this.key(ns, '$txid'), 'prepare', String(txid));
      await m.exec();
    });
  }

  commit(ns: string, txid: number): Promise<void> {
    return this.call(ns, async () => {
      try {
        await this.client.eval(COMMIT_SCRIPT, { keys: [this.key(ns), this.key(ns, '$prepare'), this.key(ns, '$txid')], arguments: [String(txid)] });
      } catch (err) {
        const m = /^HSTORM_TXID (.*)$/.exec((err as Error)?.message ?? '');
        if (m) throw new StateTxidError(`${this.locate(ns)}: commit of transaction ${txid}, but transaction ${m[1]} is the one prepared`);
        throw err;
      }
    });
  }

  rollback(ns: string): Promise<void> {
    return this.call(ns, async () => {
      await this.client.multi().del(this.key(ns, '$prepare')).hDel(this.key(ns, '$txid'), 'prepare').exec();
    });
  }

  write(ns: string, entries: readonly StateEntry[]): Promise<void> {
    return this.call(ns, async () => {
      const key = this.key(ns);
      const puts = entries.filter(([, v]) => v.length > 0).map(([k, v]): [Buffer, Buffer] => [buf(k), buf(v)]);
      const dels = entries.filter(([, v]) => v.length === 0).map(([k]) => buf(k));
      if (puts.length + dels.length === 0) return;
      const m = this.client.multi();
      if (puts.length > 0) m.hSet(key, puts);
      if (dels.length > 0) m.hDel(key, dels);
      await m.exec();
    });
  }

  drop(ns: string): Promise<void> {
    return this.call(ns, async () => {
      await this.client.del([this.key(ns), this.key(ns, '$prepare'), this.key(ns, '$txid')]);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const client = this.loaded ?? (await this.loading.catch(() => null));
    if (client === null) return;
    // A clean QUIT when connected; a client still trying to connect (or never started) is torn down.
    if (client.isReady) await client.close().catch(() => destroy(client));
    else destroy(client);
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private key(ns: string, suffix = ''): string {
    return `${this.prefix}${ns}${suffix}`;
  }

  private txid(ns: string, field: string, v: Buffer | null | undefined): number | null {
    if (v === null || v === undefined) return null;
    const text = v.toString('latin1');
    const n = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n)) {
      throw new StateStoreError(`${JSON.stringify(this.key(ns, '$txid'))} field "${field}" at ${this.where} holds ${quoteBytes(v)}, not a transaction id: delete that key (the namespace then starts from its committed entries)`, this.where);
    }
    return n;
  }

  /** Runs one store call; anything but a txid conflict becomes a StateStoreError naming the store and key. */
  private async call<T>(ns: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StateStoreError(`the state store at ${this.where} is closed`, this.where);
    let client: Client;
    try {
      client = this.loaded ?? (await this.loading);
    } catch (err) {
      throw new StateStoreError(`the state store at ${this.where} could not load its Redis client (node-redis): ${(err as Error)?.message ?? String(err)}`, this.where, { cause: err });
    }
    if (this.firstConnection !== null && !client.isReady) {
      let timer: NodeJS.Timeout | undefined;
      const waited = await Promise.race([this.firstConnection.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), this.connectTimeoutMs)))]);
      clearTimeout(timer);
      if (waited) this.firstConnection = null;
    } else {
      this.firstConnection = null;
    }
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StateTxidError || err instanceof StateStoreError) throw err;
      const why = redactUrlPasswords((err as Error)?.message ?? String(err));
      throw new StateStoreError(`state store call for ${this.locate(ns)} failed: ${why}`, this.where, { cause: err });
    }
  }
}

/** Tears a client down; one that never connected may refuse (it has nothing to tear down). */
function destroy(client: Client): void {
  try {
    client.destroy();
  } catch {
    // closed already
  }
}

function buf(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

