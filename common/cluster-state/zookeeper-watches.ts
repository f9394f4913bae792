/**
 * The watches a ZooKeeperClusterState has set and that have not fired yet.
 * ZooKeeper forgets a session's watches when the session expires; this table
 * remembers them so that, once a new session is up, each can be fired once and
 * its owner re-reads (and thereby re-arms) it. It also gives ZooKeeper's "same
 * watcher on the same node fires once" rule to node-zookeeper-client, which
 * dedups by function identity: one wrapper per (kind, path, watcher).
 */
import type { Event } from 'node-zookeeper-client';
import type { Logger } from '../logger.js';
import type { WatchEvent, WatchEventType, Watcher } from '../cluster-state.js';
import { callWatcher } from './call-watcher.js';

/** data: set by get or exists; child: set by children. */
export type ZkWatchKind = 'data' | 'child';

interface Armed {
  kind: ZkWatchKind;
  path: string;
  watcher: Watcher;
  wrapper: (e: Event) => void;
}

const EVENT_TYPES: Record<number, WatchEventType> = { 1: 'created', 2: 'deleted', 3: 'changed', 4: 'children' };

export class ZooKeeperWatches {
  private readonly armed = new Map<string, Map<Watcher, Armed>>();

  constructor(
    /** Absolute ZooKeeper path → the caller's path (the store strips its root). */
    private readonly toRelative: (absolute: string) => string,
    private readonly log?: Logger,
  ) {}

  /**
   * The function to hand to node-zookeeper-client for this watch — the same one
   * again while it is outstanding (`fresh` false: a failed request must then not disarm it).
   */
  arm(kind: ZkWatchKind, path: string, watcher: Watcher): { wrapper: (e: Event) => void; fresh: boolean } {
    const key = `${kind}:${path}`;
    let byWatcher = this.armed.get(key);
    const existing = byWatcher?.get(watcher);
    if (existing) return { wrapper: existing.wrapper, fresh: false };
    const a: Armed = {
      kind,
      path,
      watcher,
      wrapper: (e: Event) => {
        if (!this.remove(a)) return;
        const type = EVENT_TYPES[e.getType()];
        if (!type) {
          this.log?.warn({ type: e.getType(), path: e.getPath() }, 'ignored a ZooKeeper watch event of unknown type');
          return;
        }
        callWatcher(watcher, { type, path: this.toRelative(e.getPath()) }, this.log);
      },
    };
    if (!byWatcher) this.armed.set(key, (byWatcher = new Map()));
    byWatcher.set(watcher, a);
    return { wrapper: a.wrapper, fresh: true };
  }

  /** Forgets a watch whose request failed (ZooKeeper set nothing, or we cannot know). */
  disarm(kind: ZkWatchKind, path: string, watcher: Watcher): void {
    const a = this.armed.get(`${kind}:${path}`)?.get(watcher);
    if (a) this.remove(a);
  }

  /** Fires every outstanding watch once (`changed`, or `children` for a child watch) and forgets them all. */
  fireAllForResync(): number {
    const all = [...this.armed.values()].flatMap((m) => [...m.values()]);
    this.armed.clear();
    for (const a of all) {
      const event: WatchEvent = { type: a.kind === 'child' ? 'children' : 'changed', path: a.path };
      callWatcher(a.watcher, event, this.log);
    }
    return all.length;
  }

  clear(): void {
    this.armed.clear();
  }

  private remove(a: Armed): boolean {
    const key = `${a.kind}:${a.path}`;
    const byWatcher = this.armed.get(key);
    if (byWatcher?.get(a.watcher) !== a) return false;
    byWatcher.delete(a.watcher);
    if (byWatcher.size === 0) this.armed.delete(key);
    return true;
  }
}
