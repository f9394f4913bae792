/**
 * The cluster-state contract through the IPC proxy — first over an in-process
 * pair of channels that behave like Node's (JSON, asynchronous), then with a
 * real child process on a real IPC channel: its ephemeral nodes must vanish
 * when it is killed, and garbage on the channel must be counted and ignored.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess, type Serializable } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../../common/logger.js';
import { isStateError, type ClusterState, type WatchEvent } from '../../../common/cluster-state.js';
import {
  InMemoryClusterStore,
  IpcClusterState,
  serveClusterStateOverIpc,
  type IpcEndpoint,
  type IpcStateServer,
} from '../../../common/cluster-state/index.js';
import { clusterStateContract } from './cluster-state-contract.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Two connected endpoints; messages cross as JSON on a later turn, like Node's IPC. */
class FakeEndpoint extends EventEmitter implements IpcEndpoint {
  peer: FakeEndpoint | undefined;
  connected = true;
  sendImpl = (message: Serializable, callback?: (error: Error | null) => void): boolean => {
    const peer = this.peer;
    if (!this.connected || !peer) {
      const err = new Error('channel closed');
      if (callback) setImmediate(() => callback(err));
      else throw err;
      return false;
    }
    const wire = JSON.stringify(message);
    setImmediate(() => {
      if (peer.connected) peer.emit('message', JSON.parse(wire));
      callback?.(null);
    });
    return true;
  };
  send = this.sendImpl;
  disconnect(): void {
    for (const e of [this, this.peer]) {
      if (e?.connected) {
        e.connected = false;
        e.emit('disconnect');
      }
    }
  }
}

function channelPair(): { child: FakeEndpoint; parent: FakeEndpoint } {
  const child = new FakeEndpoint();
  const parent = new FakeEndpoint();
  child.peer = parent;
  parent.peer = child;
  return { child, parent };
}

clusterStateContract('IPC proxy (in-process channel)', async () => {
  const store = new InMemoryClusterStore();
  const served = new Map<ClusterState, IpcStateServer>();
  const pairs: { child: FakeEndpoint }[] = [];
  return {
    client: async () => {
      const { child, parent } = channelPair();
      const server = serveClusterStateOverIpc(parent, store, silentLogger());
      const c = new IpcClusterState({ channel: child, requestTimeoutMs: 5000 });
      served.set(c, server);
      pairs.push({ child });
      return c;
    },
    expire: async (c) => {
      const server = served.get(c);
      assert.ok(server);
      assert.equal(store.expireSession(server.sessionId), true);
    },
    cleanup: async () => {
      await Promise.all([...served.keys()].map((c) => c.close()));
      for (const p of pairs) p.child.disconnect();
    },
  };
});

describe('IPC cluster-state proxy', () => {
  it('rejects with TIMEOUT when the parent never answers', async () => {
    const { child } = channelPair(); // nobody serves the parent end
    const c = new IpcClusterState({ channel: child, requestTimeoutMs: 100 });
    const started = Date.now();
    await assert.rejects(c.get('/x'), (err: unknown) => isStateError(err, 'TIMEOUT'));
    // Without its own timer the request would wait forever; 20 s (not 2) so a loaded machine cannot fail it.
    assert.ok(Date.now() - started < 20_000, `rejected after ${Date.now() - started} ms`);
    child.disconnect();
  });

  it('fails pending and later requests with CONNECTION_LOSS when the channel goes, and reports disconnected', async () => {
    const { child } = channelPair();
    const c = new IpcClusterState({ channel: child, requestTimeoutMs: 5000 });
    const states: string[] = [];
    c.onSessionState((s) => states.push(s));
    const pending = c.get('/x');
    child.disconnect();
    await assert.rejects(pending, (err: unknown) => isStateError(err, 'CONNECTION_LOSS'));
    await assert.rejects(c.get('/x'), (err: unknown) => isStateError(err, 'CONNECTION_LOSS'));
    assert.deepEqual(states, ['connected', 'disconnected']);
  });

  it('closes the child session when the channel disconnects, so its ephemeral nodes go', async () => {
    const store = new InMemoryClusterStore();
    const { child, parent } = channelPair();
    serveClusterStateOverIpc(parent, store, silentLogger());
    const c = new IpcClusterState({ channel: child });
    await c.create('/eph', Buffer.from('x'), { mode: 'ephemeral' });
    const observer = store.session();
    assert.ok(await observer.exists('/eph'));
    let fire: (e: WatchEvent) => void = () => undefined;
    const gone = new Promise<WatchEvent>((resolve) => (fire = resolve));
    await observer.exists('/eph', fire);
    child.disconnect();
    assert.deepEqual(await gone, { type: 'deleted', path: '/eph' });
  });

  it('counts and ignores malformed state messages, leaves other modules\u2019 messages alone', async () => {
    const store = new InMemoryClusterStore();
    const { child, parent } = channelPair();
    const server = serveClusterStateOverIpc(parent, store, silentLogger());
    const c = new IpcClusterState({ channel: child });
    const raw = (to: FakeEndpoint, m: unknown): void => void to.emit('message', m);
    // To the child: bad replies, unknown state types, foreign types, non-objects.
    raw(child, { type: 'state.ok', version: 1, id: 'x' });
    raw(child, { type: 'state.whatever', version: 1 });
    raw(child, { type: 'state.ok', version: 2, id: 0, result: { op: 'none' } });
    raw(child, { type: 'worker.heartbeat', version: 1 });
    raw(child, 'just a string');
    raw(child, null);
    // To the parent: the same kinds of thing.
    raw(parent, { type: 'state.get', version: 1, id: 5, path: 7 });
    raw(parent, { type: 'state.drop-tables' });
    raw(parent, { type: 'supervisor.ping' });
    raw(parent, 42);
    assert.equal(c.garbageCount, 3);
    assert.equal(server.garbageCount, 2);
    // Still works.
    await c.create('/ok', Buffer.from('fine'));
    assert.equal((await c.get('/ok')).data.toString(), 'fine');
  });

  it('carries typed errors across: kind, code, path and message', async () => {
    const store = new InMemoryClusterStore();
    const { child, parent } = channelPair();
    serveClusterStateOverIpc(parent, store, silentLogger());
    const c = new IpcClusterState({ channel: child });
    await assert.rejects(c.set('/missing', Buffer.from('x')), (err: unknown) => {
      assert.ok(isStateError(err, 'NO_NODE'));
      assert.equal(err.code, 'HSTORM_ERR_STATE_NO_NODE');
      assert.equal(err.path, '/missing');
      return true;
    });
  });
});

describe('IPC cluster-state proxy with a real child process', function () {
  this.timeout(60_000);
  const fixture = fileURLToPath(new URL('../../fixtures/ipc-state-child.js', import.meta.url));
  let store: InMemoryClusterStore;
  let child: ChildProcess;
  let server: IpcStateServer;
  let nextId = 0;
  const watchEvents: WatchEvent[] = [];

  function run(op: string, args: { path?: string; data?: string; mode?: string } = {}): Promise<unknown> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const onMessage = (m: unknown): void => {
        const r = m as { type?: string; id?: number; ok?: boolean; value?: unknown; error?: { kind: string | null; message: string } };
        if (r.type !== 'fixture.done' || r.id !== id) return;
        child.off('message', onMessage);
        if (r.ok) resolve(r.value);
        else reject(Object.assign(new Error(r.error?.message), { kind: r.error?.kind }));
      };
      child.on('message', onMessage);
      child.send({ type: 'fixture.run', id, op, ...args });
    });
  }

  beforeEach(async () => {
    store = new InMemoryClusterStore();
    child = fork(fixture, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    server = serveClusterStateOverIpc(child, store, silentLogger());
    watchEvents.length = 0;
    child.on('message', (m: unknown) => {
      const w = m as { type?: string; event?: WatchEvent };
      if (w.type === 'fixture.watch' && w.event) watchEvents.push(w.event);
    });
    await new Promise<void>((resolve) => child.on('message', (m: unknown) => (m as { type?: string }).type === 'fixture.ready' && resolve()));
  });

  afterEach(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });

  it('serves a child; its ephemeral nodes vanish when it is killed', async () => {
    assert.equal(await run('create', { path: '/workers', data: '' }), '/workers');
    const eph = (await run('create', { path: '/workers/w-', data: 'alive', mode: 'ephemeral_sequential' })) as string;
    assert.match(eph, /^\/workers\/w-\d{10}$/);
    const observer = store.session();
    assert.equal((await observer.get(eph)).data.toString(), 'alive');
    assert.equal((await observer.exists(eph))?.ephemeral, true);
    let fire: (e: WatchEvent) => void = () => undefined;
    const gone = new Promise<WatchEvent>((resolve) => (fire = resolve));
    await observer.children('/workers', fire);
    child.kill('SIGKILL');
    assert.deepEqual(await gone, { type: 'children', path: '/workers' });
    assert.deepEqual(await observer.children('/workers'), []);
    assert.deepEqual(store.sessionIds(), [observer.sessionId]);
  });

  it('delivers watch events to the child and typed errors back to it', async () => {
    const observer = store.session();
    await observer.create('/cfg', Buffer.from('1'));
    assert.equal(await run('watch-get', { path: '/cfg' }), '1');
    await observer.set('/cfg', Buffer.from('2'));
    await waitFor('the watch event in the child', () => watchEvents.length > 0, 30_000, 10).catch(() => undefined);
    assert.deepEqual(watchEvents, [{ type: 'changed', path: '/cfg' }]);
    await assert.rejects(run('get', { path: '/absent' }), (err: unknown) => (err as { kind?: string }).kind === 'NO_NODE');
  });

  it('ignores garbage from either side and keeps working', async () => {
    child.send({ type: 'state.ok', version: 1, id: 'not-a-number' });
    child.send({ type: 'state.unknown' });
    child.send({ type: 'somebody.else', version: 1 });
    await run('send-garbage');
    assert.equal(await run('garbage-count'), 2);
    assert.equal(server.garbageCount, 2);
    assert.equal(await run('create', { path: '/still', data: 'ok' }), '/still');
  });

  it('close() from the child ends its session at once', async () => {
    await run('create', { path: '/mine', data: '', mode: 'ephemeral' });
    await run('close');
    const observer = store.session();
    assert.equal(await observer.exists('/mine'), null);
    await assert.rejects(run('get', { path: '/mine' }), (err: unknown) => (err as { kind?: string }).kind === 'CLOSED');
  });
});
