/**
 * The parent side of the cluster-state IPC channel: the local-cluster process
 * answers one child's `state.*` requests from its in-memory store, in a
 * session of the child's own. The session is closed when the child exits or
 * its channel disconnects, so a killed worker's ephemeral nodes vanish just as
 * a dead ZooKeeper client's would. The child side is ipc-client.ts.
 *
 * Usage (parent):  const served = serveClusterStateOverIpc(child, store, log);
 */
import type { Logger } from '../logger.js';
import { RateLimitedLog } from '../logger.js';
import type { Watcher } from '../cluster-state.js';
import type { InMemoryClusterStore } from './in-memory-store.js';
import {
  STATE_PROTOCOL_VERSION,
  StateRequestSchema,
  isStateMessage,
  requestIdOf,
  toWireError,
  type IpcEndpoint,
  type StateReply,
  type StateRequest,
  type StateResult,
  type WireError,
} from './ipc-messages.js';

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
